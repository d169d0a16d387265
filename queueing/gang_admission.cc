#include "queueing/gang_admission.h"

#include <algorithm>

#include "queueing/gang_fit.h"
#include "queueing/queue_limits.h"
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
  const bool limited = why.reason == PendingReason::QueueAtLimit;
  if (why.reason != PendingReason::NoPlacement && !limited) {
    run_.setWhy(g, why);
    return false;
  }
  // What terminating pods hold comes back by itself: a gang within its limits once their
  // usage is gone, or that fits once their capacity is back, waits for them, and nobody is
  // preempted for it.
  if (st_.policy.preemption && limited && waitsForTerminatingQuota(g, why)) {
    run_.setWhy(g, why);
    return false;
  }
  if (st_.policy.preemption && !limited && run_.countOnTerminating(g, least, why)) {
    run_.setWhy(g, why);
    return false;
  }
  if (st_.policy.preemption) {
    // The search's answer (or the remembered one), for the reason: a limited gang stays
    // QueueAtLimit and says why no victim helps.
    AnswerMemo& memo = run_.memo();
    Why found = why;
    bool answered = memo.preemptionKnownToFail(st_, g, least, found);
    // Not searched for want of budget: its answer is unknown, so any move may change it.
    if (!answered && !run_.searchesLeft()) memo.markPreemptVolatile(q);
    if (!answered && run_.searchesLeft()) {
      PreemptionPlan plan = planPreemption(st_, g, least, run_.now(),
                                           memo.candidatePool(st_.policy), run_.retryBudget());
      if (plan.searched) run_.noteSearch();
      memo.noteProtectedUntil(plan.protected_until);
      if (plan.ok) return applyPlan(g, plan);
      found.reason = plan.reason;
      found.detail = plan.detail;
      memo.rememberPreemptionFailure(st_, g, least, found, plan);
      answered = true;
    }
    if (answered && limited)
      why.detail = noVictimDetail(found);
    else if (answered)
      why = found;
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
  namePlacementShortage(gs, why);
  run_.setWhy(g, why);
  return false;
}

// Why no victim brings a gang within the limit that binds it, from its preemption
// answer: "no victim can be taken: ...".
SharedText GangAdmission::noVictimDetail(const Why& found) {
  std::string d = found.detail.str();
  if (d.empty())
    d = found.reason == PendingReason::OverFairShare
            ? "its queue would end above its fair share, so it may take from no other queue"
            : "no running gang may be preempted for it";
  return SharedText("no victim can be taken: " + d);
}

// A gang whose limits hold only once what terminating pods hold is gone waits for them,
// and nobody is preempted for it: counting on their capacity too when its placement
// needs it, else holding nothing (it fits the free capacity). False when it is not
// within its limits even so, or needs more room than terminating pods free.
bool GangAdmission::waitsForTerminatingQuota(GangId g, Why& why) {
  if (st_.terminating.empty()) return false;
  const GangState& gs = st_.gangs[g];
  const TerminatingUsage going = terminatingUsage(st_, why.quota_level);
  if (going.by_queue.empty() || quotaBreach(st_, gs.queue, gs.min_request, going.by_queue))
    return false;
  if (run_.countOnTerminating(g, least_, why, going.gangs)) return true;
  PlaceOptions o;
  o.self = g;
  if (!placeGang(st_, g, least_, o).ok) return false;
  why.reason = PendingReason::WaitingForReclaim;
  why.blocking = st_.gangName(going.gangs.front());
  why.detail = describeTerminatingWait(st_, going.gangs);
  // What it waits for may not be there for the next gang.
  run_.noteCountedOnByLast();
  run_.memo().noteCountsOnTerminating(gs.queue);
  return true;
}

std::string GangAdmission::firstBlockingReservation() const {
  return st_.reservations.empty() ? std::string() : st_.gangName(st_.reservations.front().gang);
}

// Carries out a preemption plan: evicts and shrinks its victims, then admits g, or, when
// its placement also counts on terminating capacity, leaves it waiting for that.
// Returns whether g was admitted.
bool GangAdmission::applyPlan(GangId g, PreemptionPlan& plan) {
  run_.preemptVictims(g, plan.victims);
  const GangState& gs = st_.gangs[g];
  if (fitsNow(g, plan.pods) && withinLimits(st_, gs.queue, gs.min_request)) {
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
