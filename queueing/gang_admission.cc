#include "queueing/gang_admission.h"

#include <algorithm>
#include <bit>
#include <optional>
#include <utility>

#include "queueing/gang_fit.h"
#include "queueing/queue_limits.h"
#include "queueing/reservations.h"

namespace troupe::queueing {

bool GangAdmission::tryToAdmit(GangId g) {
  run_.forgetCountedOnByLast();
  if (st_.gangs[g].evicted_cycle == st_.cycle) return false;  // its Why was set at eviction
  if (!st_.gangs[g].ways.empty()) return tryWays(g);
  Why why = run_.baseWhy(g);
  if (auto pods = fit(g, why)) {
    run_.admit(g, std::move(*pods));
    return true;
  }
  if (!curable(why)) {
    run_.setWhy(g, why);
    return false;
  }
  switch (cure(g, why)) {
    case Cure::Admitted: return true;
    case Cure::Waits: return false;
    case Cure::None: break;
  }
  explainWait(g, why);
  return false;
}

// The ways of a gang with alternatives, in order of preference (docs/scheduling.md,
// "Choosing a GPU type"): one that fits within its queue's guarantee is taken at once, one
// that fits only by borrowing when the queue says Stay (else remembered), one that needs
// preemption is searched at once when the queue says Stay and no earlier way fits by
// borrowing (else remembered). Then the first remembered borrowing fit, then the
// remembered searches in order. A gang left waiting waits for its first way that could
// ever fit: its explanation and its reservation are that way's.
bool GangAdmission::tryWays(GangId g) {
  GangState& gs = st_.gangs[g];
  const QueueSpec& queue = st_.queues[static_cast<std::size_t>(gs.queue)].spec;
  const std::size_t n = gs.ways.size();
  std::vector<Why>& whys = way_whys_;
  whys.assign(n, Why{});
  std::optional<std::pair<std::size_t, std::vector<Pod>>> borrowing;
  std::vector<std::size_t>& searches = way_searches_;
  searches.clear();
  for (std::size_t w = 0; w < n; ++w) {
    st_.useWay(g, w);
    whys[w] = run_.baseWhy(g);
    if (auto pods = fit(g, whys[w])) {
      if (queue.when_borrowing == VariantFungibility::Stay || !borrows(g, *pods)) {
        run_.admit(g, std::move(*pods));
        return true;
      }
      if (!borrowing) borrowing.emplace(w, std::move(*pods));
      continue;
    }
    if (!curable(whys[w])) continue;
    if (queue.when_preempting == VariantFungibility::TryNext || borrowing) {
      searches.push_back(w);
      continue;
    }
    switch (cure(g, whys[w])) {
      case Cure::Admitted: return true;
      case Cure::Waits: return false;
      case Cure::None: break;
    }
  }
  // Nothing changed capacity since the borrowing fit was found: a search that ran after
  // it would have taken its way.
  if (borrowing) {
    st_.useWay(g, borrowing->first);
    run_.admit(g, std::move(borrowing->second));
    return true;
  }
  for (std::size_t w : searches) {
    st_.useWay(g, w);
    setCounts(g);
    switch (cure(g, whys[w])) {
      case Cure::Admitted: return true;
      case Cure::Waits: return false;
      case Cure::None: break;
    }
  }
  noteWaysWaiting(g, whys);
  std::size_t waits_for = 0;
  while (waits_for < n && whys[waits_for].reason == PendingReason::Inadmissible) ++waits_for;
  if (waits_for == n) waits_for = 0;
  st_.useWay(g, waits_for);
  setCounts(g);
  if (curable(whys[waits_for]))
    explainWait(g, whys[waits_for]);
  else
    run_.setWhy(g, whys[waits_for]);
  return false;
}

// What a release of capacity could change for g, whose ways all failed (as
// AnswerMemo::noteWaiting notes it for a gang of one kind): each way that waits for room
// adds its kind and count to its queue's look; a way held back by anything else (a limit,
// a reservation, an estimate) makes the look release-sensitive.
void GangAdmission::noteWaysWaiting(GangId g, const std::vector<Why>& whys) {
  const GangState& gs = st_.gangs[g];
  QueueLook& look = run_.memo().look(gs.queue);
  const bool exempt = gs.spec.runtime_estimate.has_value() || st_.holdsReservation(g);
  for (std::size_t w = 0; w < gs.ways.size(); ++w) {
    const PendingReason r = whys[w].reason;
    if (r == PendingReason::Inadmissible) continue;  // until a node or queue changes
    const KindId kind = gs.ways[w].kind;
    const bool room = r == PendingReason::NoPlacement ||
                      r == PendingReason::TopologyUnsatisfiable ||
                      r == PendingReason::OverFairShare || r == PendingReason::WaitingForReclaim ||
                      r == PendingReason::BlockedByStarvingJob;
    if (!room || kind == kNoKind || exempt) {
      look.release_proof = false;
      continue;
    }
    const std::int64_t count = st_.podSetsOfWay(g, w)[0].min_count;
    auto it = std::find_if(look.kinds.begin(), look.kinds.end(),
                           [&](const auto& kc) { return kc.first == kind; });
    if (it == look.kinds.end())
      look.kinds.emplace_back(kind, count);
    else
      it->second = std::min(it->second, count);
  }
}

// Whether starting g's `pods` takes its queue past its guarantee in a resource its ways
// ask different amounts of (a GPU type's quota resource): borrowing that type.
bool GangAdmission::borrows(GangId g, const std::vector<Pod>& pods) const {
  const GangState& gs = st_.gangs[g];
  const QueueState& q = st_.queues[static_cast<std::size_t>(gs.queue)];
  ResourceVector after = q.allocated;
  for (const Pod& pod : pods) after += st_.requestOf(g, pod.pod_set);
  for (std::size_t r = 0; r < kMaxResources; ++r) {
    bool differs = false;
    for (const GangWay& w : gs.ways) differs = differs || w.full_request[r] != gs.full_request[r];
    if (differs && after[r] > q.allocated[r] && after[r] > q.spec.guaranteed[r]) return true;
  }
  return false;
}

void GangAdmission::setCounts(GangId g) {
  least_.clear();
  full_.clear();
  for (const auto& ps : st_.gangs[g].spec.pod_sets) {
    least_.push_back(ps.min_count);
    full_.push_back(ps.count);
  }
}

PlaceOptions GangAdmission::placeOptions(GangId g) const {
  const GangState& gs = st_.gangs[g];
  PlaceOptions o;
  o.self = g;
  if (gs.spec.runtime_estimate) o.backfill_end = run_.now() + *gs.spec.runtime_estimate;
  return o;
}

// Steps 1-3: where g, at its active way, fits now; otherwise `why` says why not.
std::optional<std::vector<Pod>> GangAdmission::fit(GangId g, Why& why) {
  setCounts(g);
  const PlaceOptions o = placeOptions(g);
  auto place = [&](const std::vector<std::int32_t>& counts) {
    return run_.memo().place(st_, g, counts, o);
  };
  return fitGang(st_, run_.memo(), g, least_, full_, place, why);
}

bool GangAdmission::curable(const Why& why) {
  return why.reason == PendingReason::NoPlacement || why.reason == PendingReason::QueueAtLimit;
}

// Step 4, for a gang that did not fit (NoPlacement or QueueAtLimit): waiting for
// terminating pods, or a preemption search. Admitted, waiting (its explanation set), or
// not cured (`why` holds the search's answer).
GangAdmission::Cure GangAdmission::cure(GangId g, Why& why) {
  if (!st_.policy.preemption) return Cure::None;
  const QueueId q = st_.gangs[g].queue;
  const std::vector<std::int32_t>& least = least_;
  const bool limited = why.reason == PendingReason::QueueAtLimit;
  // What terminating pods hold comes back by itself: a gang within its limits once their
  // usage is gone, or that fits once their capacity is back, waits for them, and nobody is
  // preempted for it.
  if ((limited && waitsForTerminatingQuota(g, why)) ||
      (!limited && run_.countOnTerminating(g, least, why))) {
    run_.setWhy(g, why);
    return Cure::Waits;
  }
  // The search's answer (or the remembered one), for the reason: a limited gang stays
  // QueueAtLimit and says why no victim helps.
  AnswerMemo& memo = run_.memo();
  Why found = why;
  bool answered = memo.preemptionKnownToFail(st_, g, least, found);
  // Not searched for want of budget: its answer is unknown, so any move may change it.
  if (!answered && !run_.searchesLeft()) memo.markPreemptVolatile(q);
  if (!answered && run_.searchesLeft()) {
    PreemptionPlan plan = planPreemption(st_, g, least, run_.now(), memo.candidatePool(st_.policy),
                                         run_.retryBudget());
    if (plan.searched) run_.noteSearch();
    memo.noteProtectedUntil(plan.protected_until);
    if (plan.ok) return applyPlan(g, plan) ? Cure::Admitted : Cure::Waits;
    found.reason = plan.reason;
    found.detail = plan.detail;
    memo.rememberPreemptionFailure(st_, g, least, found, plan);
    answered = true;
  }
  if (answered && limited)
    why.detail = noVictimDetail(found);
  else if (answered)
    why = found;
  return Cure::None;
}

// Step 5: g waits; says why, and gives a starving gang a reservation.
void GangAdmission::explainWait(GangId g, Why why) {
  GangState& gs = st_.gangs[g];
  if (why.reason == PendingReason::NoPlacement && !st_.reservations.empty() &&
      !st_.holdsReservation(g)) {
    PlaceOptions ignore = placeOptions(g);
    ignore.ignore_reservations = true;
    if (run_.memo().fitsIgnoringReservations(st_, g, least_, ignore)) {
      why.reason = PendingReason::BlockedByStarvingJob;
      why.blocking = firstBlockingReservation();
    }
  }
  if (st_.policy.backfill && run_.starving(g) &&
      (st_.holdsReservation(g) || reserve(st_, g, least_, run_.now()))) {
    why.reason = PendingReason::Reserved;
    why.blocking.clear();
  }
  namePlacementShortage(gs, why);
  run_.setWhy(g, why);
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
  // Shares of one GPU, summed by (node, GPU index).
  std::vector<std::pair<std::pair<NodeId, int>, std::int32_t>> shares;
  for (const Pod& pod : pods) {
    auto it = std::find_if(takes.begin(), takes.end(),
                           [&](const auto& t) { return t.first == pod.node; });
    if (it == takes.end()) it = takes.insert(takes.end(), {pod.node, HeldCapacity{}});
    it->second.requests += st_.requestOf(g, pod.pod_set);
    if (pod.gpu_milli == 0) {
      it->second.gpus |= pod.gpus;
      continue;
    }
    const std::pair<NodeId, int> key{pod.node, std::countr_zero(pod.gpus)};
    auto s =
        std::find_if(shares.begin(), shares.end(), [&](const auto& sh) { return sh.first == key; });
    if (s == shares.end()) s = shares.insert(shares.end(), {key, 0});
    s->second += pod.gpu_milli;
  }
  const bool shares_fit = std::all_of(shares.begin(), shares.end(), [&](const auto& sh) {
    const NodeState& node = st_.nodes[sh.first.first];
    const auto i = static_cast<std::size_t>(sh.first.second);
    const std::int32_t used = node.gpu_shares.empty() ? 0 : node.gpu_shares[i];
    return (used > 0 || ((node.free_gpus >> i) & 1)) && used + sh.second <= kGpuMilli;
  });
  return shares_fit && std::all_of(takes.begin(), takes.end(), [&](const auto& t) {
           const NodeState& node = st_.nodes[t.first];
           return (node.free_gpus & t.second.gpus) == t.second.gpus &&
                  t.second.requests.fitsIn(node.free);
         });
}

}  // namespace troupe::queueing
