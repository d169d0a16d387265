#pragma once

#include <cstdint>
#include <vector>

#include "queueing/ids.h"
#include "queueing/resource_vector.h"

namespace troupe::queueing {

class EngineState;
struct QueueSpec;

// What queues keep of their guarantee for themselves: the part of a guarantee beyond its
// lendingLimit that the queue does not use stays idle for it (docs/fair-share.md), so no
// other queue is admitted onto it. Seen from outside a queue's subtree, per resource:
//
//   keeps(c) = max(own(c), sum of keeps(d) over the children d of c)
//   own(c)   = max(0, guaranteed(c) - lendingLimit(c) - allocated(c))
//
// A child keeps its amount inside its parent's guarantee (children's guarantees fit in
// their parent's), so what the parent keeps itself covers it when larger; summing both
// would count the same GPUs twice. The quota check (queue_limits.h) counts what the queues
// beside a gang's path keep against every limit on that path.
//
// Two sets of amounts are kept: as the queues hold now, and on an empty cluster (nothing
// allocated: every queue keeps all it may), which moves only with the specs.
class KeptGuarantees {
 public:
  // Brings the amounts up to date with the state's allocations and queue specs (cheap when
  // neither moved; a pass over the queues otherwise, and none when no queue keeps any).
  void refresh(const EngineState& st);
  // Some queue keeps part of a guarantee unlent (a lendingLimit below its guarantee): when
  // false every amount is zero and the quota check skips them.
  bool any() const { return any_; }
  const ResourceVector& keeps(QueueId q, bool empty) const {
    return amounts(empty).keeps[static_cast<std::size_t>(q)];
  }
  // The sum of keeps() over q's children; for q = -1, over the top-level queues.
  const ResourceVector& childrenKeep(QueueId q, bool empty) const {
    const Amounts& a = amounts(empty);
    return q < 0 ? a.top : a.children[static_cast<std::size_t>(q)];
  }

  // own(c) above.
  static ResourceVector own(const QueueSpec& spec, const ResourceVector& allocated);
  // Whether `spec` keeps anything unlent at all (a lendingLimit below its guarantee).
  static bool keepsAny(const QueueSpec& spec);

 private:
  struct Amounts {
    // By queue id (entries of removed queues are zero).
    std::vector<ResourceVector> keeps;
    std::vector<ResourceVector> children;
    ResourceVector top;
  };
  const Amounts& amounts(bool empty) const { return empty ? empty_ : live_; }
  void compute(const EngineState& st, bool empty, Amounts& out) const;

  std::uint64_t alloc_version_ = 0;
  std::int64_t cycle_ = -1;
  std::size_t queue_count_ = 0;
  bool any_ = false;
  std::vector<QueueId> bottom_up_;  // present queues, children before parents
  Amounts live_;
  Amounts empty_;
};

}  // namespace troupe::queueing
