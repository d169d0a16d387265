#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "queueing/answer_memo.h"
#include "queueing/engine_state.h"
#include "queueing/gang_placer.h"
#include "queueing/queue_limits.h"

namespace troupe::queueing {

// Records on `why` that `breach` binds g's admission.
inline void noteQuota(Why& why, const QuotaBreach& breach) {
  why.quota_level = breach.queue;
  why.quota_resource = static_cast<std::int32_t>(breach.resource);
}

// Every pod set of g at its full size, as placement takes counts.
inline std::vector<std::int32_t> fullCounts(const GangState& gs) {
  std::vector<std::int32_t> counts;
  counts.reserve(gs.spec.pod_sets.size());
  for (const auto& ps : gs.spec.pod_sets) counts.push_back(ps.count);
  return counts;
}

// NoPlacement for a gang whose topology is required says so: no domain of its level has
// room for it now (it fits one on an empty cluster, or it would be Inadmissible).
inline void namePlacementShortage(const GangState& gs, Why& why) {
  if (why.reason == PendingReason::NoPlacement && gs.spec.topology.mode == TopologyMode::Required)
    why.reason = PendingReason::TopologyUnsatisfiable;
}

// Where gang g fits now, under the first rules of every admission, whatever the policy
// (docs/scheduling.md, "One cycle"): quota and placement together, never "quota now,
// placement later".
//  1. Quota (quotaBreach, queue_limits.h): its queue and each ancestor, in every resource,
//     stay within their limit with what queues beside its path keep unlent. A limit it
//     passes now may be met once victims are gone, so only free placement is skipped.
//  2. Placement of every pod at once on free capacity: an elastic gang at its full size
//     (`full` pods per pod set) if its queue's limits allow, else at its minimum (`least`).
//  3. If it is not admitted: could it ever be, on an empty cluster under its tree (a limit
//     on its path, the cluster's size, a node or domain that could hold it, asked of the
//     memo)? If not, it waits with Inadmissible; else with QueueAtLimit when a queue's
//     limit binds, or NoPlacement (the binding level noted when the cluster's free
//     capacity is what queues keep unlent), which a policy may go on to cure (terminating
//     pods, preemption, reservations).
// Returns the pods to start when it fits; otherwise `why` holds the reason and the largest
// free domain its placement found. `place(counts)` places g's pods at `counts` on free
// capacity as it is now (the policy says how: afresh, or as the memo remembers).
template <class Place>
std::optional<std::vector<Pod>> fitGang(EngineState& st, AnswerMemo& memo, GangId g,
                                        const std::vector<std::int32_t>& least,
                                        const std::vector<std::int32_t>& full, Place&& place,
                                        Why& why) {
  const GangState& gs = st.gangs[g];
  const std::optional<QuotaBreach> breach = quotaBreach(st, gs.queue, gs.min_request);
  if (!breach) {
    if (full != least && withinLimits(st, gs.queue, gs.full_request)) {
      Placement p = place(full);
      if (p.ok) return std::move(p.pods);
    }
    Placement p = place(least);
    if (p.ok) return std::move(p.pods);
    why.level = p.level;
    why.domain = p.domain;
    why.domain_pods = p.domain_pods;
  }
  // Could it ever be admitted, on an empty cluster under its tree? That depends on the
  // specs and the nodes alone, never on what runs, so the answer is stable.
  const std::optional<QuotaBreach> never = quotaBreachWhenEmpty(st, gs.queue, gs.min_request);
  if (never || !memo.fitsEver(st, g, least)) {
    why.reason = PendingReason::Inadmissible;
    if (never) noteQuota(why, *never);  // a limit, or larger than the cluster
    return std::nullopt;
  }
  why.reason = PendingReason::NoPlacement;
  if (breach) {
    noteQuota(why, *breach);
    // At the top, what queues keep unlent of their guarantees leaves too little free
    // capacity: that is placement's shortage, moving as placement's does.
    if (breach->queue != kClusterLevel) why.reason = PendingReason::QueueAtLimit;
  }
  return std::nullopt;
}

}  // namespace troupe::queueing
