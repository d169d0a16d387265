#pragma once

#include <cstddef>
#include <vector>

#include "queueing/decisions.h"
#include "queueing/ids.h"

namespace troupe::queueing {

// One victim of a preemption: a running gang evicted whole, or some of its pods removed
// (an elastic gang shrunk toward its minimum).
struct Victim {
  GangId gang = kNoGang;
  bool whole = true;              // evict the gang; false: remove `pods` (shrink)
  std::vector<std::size_t> pods;  // indexes into the victim's pods, when shrinking
  PreemptionReason reason = PreemptionReason::Reclaim;
};

}  // namespace troupe::queueing
