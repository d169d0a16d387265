#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "queueing/decisions.h"
#include "queueing/ids.h"
#include "queueing/placement_memo.h"
#include "queueing/preemption.h"
#include "queueing/shared_text.h"

namespace troupe::queueing {

// A remembered failed preemption search, for gangs of one kind, queue and priority at
// min_failing pods or more (keyed by preemptKey()).
struct PreemptFailure {
  std::int64_t min_failing = 0;
  std::int32_t priority = 0;  // the priority the answer holds for
  PendingReason reason = PendingReason::NoPlacement;
  SharedText detail;
  PreemptFailureKind kind = PreemptFailureKind::Volatile;
  std::vector<std::int32_t> sources;  // Exhausted: the source queues, sorted by id
};
using PreemptMemo = std::unordered_map<std::uint64_t, PreemptFailure>;
inline std::uint64_t preemptKey(KindId kind, QueueId queue) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(kind)) << 32) |
         static_cast<std::uint32_t>(queue);
}
inline KindId kindOfPreemptKey(std::uint64_t key) { return static_cast<KindId>(key >> 32); }
inline QueueId queueOfPreemptKey(std::uint64_t key) {
  return static_cast<QueueId>(static_cast<std::uint32_t>(key));
}

}  // namespace troupe::queueing
