#include "queueing/static_partition_policy.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "queueing/covered_resources.h"
#include "queueing/gang_fit.h"

namespace troupe::queueing {
namespace {

struct PartitionBreach {
  QueueId queue = -1;
  std::size_t resource = 0;
};

// The first level of q's path, from q up, whose guarantee `request` would pass with
// `holds(level)` already held; none when every level keeps within its guarantee.
template <class Holds>
std::optional<PartitionBreach> partitionBreach(const EngineState& st, QueueId q,
                                               const ResourceVector& request,
                                               const std::array<bool, kMaxResources>& partitioned,
                                               Holds&& holds) {
  for (QueueId at = q; at >= 0; at = st.queues[static_cast<std::size_t>(at)].parent) {
    const QueueState& qs = st.queues[static_cast<std::size_t>(at)];
    for (std::size_t r = 0; r < kMaxResources; ++r)
      if (partitioned[r] && holds(qs)[r] + request[r] > qs.spec.guaranteed[r])
        return PartitionBreach{at, r};
  }
  return std::nullopt;
}

const SharedText& partitionDetail() {
  static const SharedText text(
      "its queue's partition is full: yarn-cs caps every queue at its guarantee "
      "(maximum-capacity = capacity) and never borrows idle GPUs");
  return text;
}

}  // namespace

void StaticPartitionPolicy::admit(CycleRun& run) {
  EngineState& st = run.state();
  const auto partitioned = coveredResources(st);
  const auto held = [](const QueueState& qs) -> const ResourceVector& { return qs.allocated; };
  const auto nothing = [](const QueueState&) { return ResourceVector{}; };
  std::vector<GangId> order;
  for (QueueId q : st.queues_by_rank) {
    QueueState& qs = st.queues[static_cast<std::size_t>(q)];
    if (!qs.leaf() || qs.pending.empty()) continue;
    order.clear();
    qs.pending.beginWalk();
    for (GangId g = qs.pending.next(); g != kNoGang; g = qs.pending.next()) order.push_back(g);
    qs.pending.endWalk();
    std::string head;
    for (GangId g : order) {
      const GangState& gs = st.gangs[g];
      Why why = run.baseWhy(g);
      if (!head.empty()) {
        why.reason = PendingReason::BlockedByQueueHead;
        why.blocking = head;
        run.setWhy(g, why);
        continue;
      }
      const std::vector<std::int32_t> counts = fullCounts(gs);
      // Larger than a guarantee on its path: it waits at that queue's limit for good, as a
      // YARN application asking more than its queue's maximum capacity does. Larger than
      // any node or domain could hold: it can never run. Either way it blocks nobody.
      if (const auto never = partitionBreach(st, q, gs.full_request, partitioned, nothing)) {
        why.reason = PendingReason::QueueAtLimit;
        why.quota_level = never->queue;
        why.quota_resource = static_cast<std::int32_t>(never->resource);
        why.detail = partitionDetail();
        run.setWhy(g, why);
        continue;
      }
      if (!run.memo().fitsEver(st, g, counts)) {
        why.reason = PendingReason::Inadmissible;
        run.setWhy(g, why);
        continue;
      }
      if (const auto breach = partitionBreach(st, q, gs.full_request, partitioned, held)) {
        why.reason = PendingReason::QueueAtLimit;
        why.quota_level = breach->queue;
        why.quota_resource = static_cast<std::int32_t>(breach->resource);
        why.detail = partitionDetail();
      } else {
        PlaceOptions o;
        o.self = g;
        Placement p = placeGang(st, g, counts, o);
        if (p.ok) {
          run.admit(g, std::move(p.pods));
          continue;
        }
        why.reason = PendingReason::NoPlacement;
        why.level = p.level;
        why.domain = p.domain;
        why.domain_pods = p.domain_pods;
        namePlacementShortage(gs, why);
      }
      run.setWhy(g, why);
      head = gs.spec.name;
    }
  }
}

}  // namespace troupe::queueing
