#include "queueing/gang_admission.h"

#include <algorithm>

#include "queueing/gang_fit.h"
#include "queueing/reservations.h"

namespace troupe::queueing {

bool GangAdmission::tryToAdmit(GangId g) {
  run_.forgetCountedOnByLast();
  GangState& gs = st_.gangs[g];
  const QueueId q = gs.queue;
  Why why = run_.baseWhy(g);
  if (gs.evicted_cycle == st_.cycle) return false;  // its Why was set at eviction
  PlaceOptions o;
  o.self = g;
  if (gs.spec.runtime_estimate) o.backfill_end = run_.now() + *gs.spec.runtime_estimate;
  least_.clear();
  full_.clear();
  for (const auto& ps : gs.spec.pod_sets) {
    least_.push_back(ps.min_count);
    full_.push_back(ps.count);
  }
  const std::vector<std::int32_t>& least = least_;
  auto place = [&](const std::vector<std::int32_t>& counts) {
    return run_.memo().place(st_, g, counts, o);
  };
  if (auto pods = fitGang(st_, run_.memo(), g, least, full_, place, why)) {
    run_.admit(g, std::move(*pods));
    return true;
  }
  if (why.reason != PendingReason::NoPlacement) {
    run_.setWhy(g, why);
    return false;
  }
  // Capacity terminating pods hold comes back by itself: a gang that fits once it is
  // back waits for it, and nobody is preempted for it.
  if (st_.policy.preemption && run_.countOnTerminating(g, least, why)) {
    run_.setWhy(g, why);
    return false;
  }
  if (st_.policy.preemption) {
    AnswerMemo& memo = run_.memo();
    const bool known = memo.preemptionKnownToFail(st_, g, least, why);
    // Not searched for want of budget: its answer is unknown, so any move may change it.
    if (!known && !run_.searchesLeft()) memo.markPreemptVolatile(q);
    if (!known && run_.searchesLeft()) {
      PreemptionPlan plan =
          planPreemption(st_, g, least, run_.now(), memo.candidatePool(st_.policy));
      if (plan.searched) run_.noteSearch();
      memo.noteProtectedUntil(plan.protected_until);
      if (plan.ok) return applyPlan(g, plan);
      why.reason = plan.reason;
      why.detail = plan.detail;
      memo.rememberPreemptionFailure(st_, g, least, why, plan);
    }
  }
  if (why.reason == PendingReason::NoPlacement && !st_.reservations.empty() &&
      !st_.holdsReservation(g)) {
    PlaceOptions ignore = o;
    ignore.ignore_reservations = true;
    if (run_.memo().fitsIgnoringReservations(st_, g, least, ignore)) {
      why.reason = PendingReason::BlockedByStarvingJob;
      why.blocking = firstBlockingReservation();
    }
  }
  if (st_.policy.backfill && run_.starving(g) &&
      (st_.holdsReservation(g) || reserve(st_, g, least, run_.now()))) {
    why.reason = PendingReason::Reserved;
    why.blocking.clear();
  }
  run_.setWhy(g, why);
  return false;
}

std::string GangAdmission::firstBlockingReservation() const {
  return st_.reservations.empty() ? std::string() : st_.gangName(st_.reservations.front().gang);
}

// Carries out a preemption plan: evicts and shrinks its victims, then admits g, or, when
// its placement also counts on terminating capacity, leaves it waiting for that.
// Returns whether g was admitted.
bool GangAdmission::applyPlan(GangId g, PreemptionPlan& plan) {
  run_.preemptVictims(g, plan.victims);
  if (fitsNow(g, plan.pods)) {
    run_.admit(g, std::move(plan.pods));
    return true;
  }
  // The search counted on capacity terminating pods still hold: the gang waits for them
  // and for its victims, holding what is free of its placement for the rest of the cycle.
  Why why = run_.baseWhy(g);
  std::vector<GangId> victims;
  for (const Victim& v : plan.victims) victims.push_back(v.gang);
  if (!run_.countOnTerminating(g, least_, why, victims)) {
    why.reason = PendingReason::WaitingForReclaim;
    why.detail = std::string("waiting for terminating pods to free the capacity it needs");
  }
  run_.setWhy(g, why);
  return false;
}

// Whether `pods` of gang g fit on free capacity as it is now.
bool GangAdmission::fitsNow(GangId g, const std::vector<Pod>& pods) const {
  std::vector<std::pair<NodeId, HeldCapacity>> takes;
  for (const Pod& pod : pods) {
    auto it = std::find_if(takes.begin(), takes.end(),
                           [&](const auto& t) { return t.first == pod.node; });
    if (it == takes.end()) it = takes.insert(takes.end(), {pod.node, HeldCapacity{}});
    it->second.requests += st_.requestOf(g, pod.pod_set);
    it->second.gpus |= pod.gpus;
  }
  return std::all_of(takes.begin(), takes.end(), [&](const auto& t) {
    const NodeState& node = st_.nodes[t.first];
    return (node.free_gpus & t.second.gpus) == t.second.gpus && t.second.requests.fitsIn(node.free);
  });
}

}  // namespace troupe::queueing
