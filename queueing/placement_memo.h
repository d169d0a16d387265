#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>

#include "queueing/decisions.h"
#include "queueing/resource_vector.h"

namespace troupe::queueing {

// Placement outcomes depend only on a pod set's constraints, pod request and topology
// (for a fixed view of free capacity). Free capacity only shrinks until something is
// released (a gang ends or is preempted, a node or reservation changes: then the memos
// are cleared), so "n pods of this kind did not fit" stays true for every count >= n:
// later gangs of the same kind fail in O(1), in this cycle and the next ones.
struct MemoKey {
  std::int32_t cls = 0;
  std::int32_t mode = 0;
  std::int32_t level = -1;
  std::int32_t queue = -1;  // preemption memos only: the rules depend on the queue
  ResourceVector request;
  friend bool operator==(const MemoKey&, const MemoKey&) = default;
};

struct MemoKeyHash {
  std::size_t operator()(const MemoKey& k) const {
    std::size_t h = std::hash<std::int64_t>{}(k.cls) * 1000003u ^
                    std::hash<std::int64_t>{}(k.mode * 131 + k.level) ^
                    std::hash<std::int64_t>{}(k.queue) * 7919u;
    for (std::size_t r = 0; r < kMaxResources; ++r)
      h = h * 1099511628211ull ^ std::hash<std::int64_t>{}(k.request[r]);
    return h;
  }
};

struct MemoEntry {
  std::int64_t min_failing = 0;
  std::int32_t level = -1;
  std::int32_t domain = -1;
  std::int64_t domain_pods = 0;
  PendingReason reason = PendingReason::NoPlacement;
  std::string detail;
};

using Memo = std::unordered_map<MemoKey, MemoEntry, MemoKeyHash>;

}  // namespace troupe::queueing
