#pragma once

#include <cstdint>

#include "queueing/engine_state.h"

namespace troupe::queueing {

// A leaf queue's place in fair-share order (docs/scheduling.md, "One cycle", step 4): the
// queue least far above its fair share goes first, counting decayed usage; then the
// higher queue priority; then the name. A total order.
struct QueueTurn {
  double key;  // dominant share of (1-w)*allocated + w*decayed usage, w = usage_weight
  std::int32_t neg_priority;
  std::uint32_t rank;  // by name
  QueueId queue;
  // Later in the order (for a min-heap with std::greater).
  bool operator>(const QueueTurn& o) const {
    if (key != o.key) return key > o.key;
    if (neg_priority != o.neg_priority) return neg_priority > o.neg_priority;
    return rank > o.rank;
  }
};

QueueTurn queueTurn(const EngineState& st, QueueId q);

}  // namespace troupe::queueing
