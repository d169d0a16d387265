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

// Where gang g fits now, under the first rules of every admission, whatever the policy
// (docs/scheduling.md, "One cycle"): quota and placement together, never "quota now,
// placement later".
//  1. Quota: its queue and each ancestor stay within their limit (withinLimits), else it
//     waits with QueueAtLimit.
//  2. Placement of every pod at once on free capacity: an elastic gang at its full size
//     (`full` pods per pod set) if its queue's limits allow, else at its minimum (`least`).
//  3. If it does not fit: could it fit an empty cluster (asked of the memo)? If not, it
//     waits with Unschedulable, or TopologyUnsatisfiable; else with NoPlacement, which a
//     policy may go on to cure (terminating pods, preemption, reservations).
// Returns the pods to start when it fits; otherwise `why` holds the reason and the largest
// free domain its placement found. `place(counts)` places g's pods at `counts` on free
// capacity as it is now (the policy says how: afresh, or as the memo remembers).
template <class Place>
std::optional<std::vector<Pod>> fitGang(EngineState& st, AnswerMemo& memo, GangId g,
                                        const std::vector<std::int32_t>& least,
                                        const std::vector<std::int32_t>& full, Place&& place,
                                        Why& why) {
  const GangState& gs = st.gangs[g];
  if (!withinLimits(st, gs.queue, gs.min_request)) {
    why.reason = PendingReason::QueueAtLimit;
    return std::nullopt;
  }
  if (full != least && withinLimits(st, gs.queue, gs.full_request)) {
    Placement p = place(full);
    if (p.ok) return std::move(p.pods);
  }
  Placement p = place(least);
  if (p.ok) return std::move(p.pods);
  why.level = p.level;
  why.domain = p.domain;
  why.domain_pods = p.domain_pods;
  if (memo.fitsEver(st, g, least)) {
    why.reason = PendingReason::NoPlacement;
  } else {
    why.reason = gs.spec.topology.mode == TopologyMode::Required
                     ? PendingReason::TopologyUnsatisfiable
                     : PendingReason::Unschedulable;
  }
  return std::nullopt;
}

}  // namespace troupe::queueing
