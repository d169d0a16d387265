#include "queueing/cycle_run.h"

#include <boost/sort/spreadsort/integer_sort.hpp>

#include <algorithm>

#include "queueing/reservations.h"
#include "queueing/state_reports.h"

namespace troupe::queueing {

Why CycleRun::baseWhy(GangId g) const {
  const GangState& gs = st_.gangs[g];
  Why why;
  std::size_t dom = 0;
  double best = -1;
  for (std::size_t r = 0; r < kMaxResources; ++r) {
    if (gs.min_request[r] <= 0) continue;
    const double share = static_cast<double>(gs.min_request[r]) /
                         static_cast<double>(std::max<std::int64_t>(st_.usable_capacity[r], 1));
    if (share > best) {
      best = share;
      dom = r;
    }
  }
  why.dominant = static_cast<std::int32_t>(dom);
  return why;
}

// Records why g waits; copied only when it is news (an answer shared within a walk is
// handed to many gangs, most of which already hold it). A new largest free domain alone
// is kept but not reported as a change (Why::sameApartFromDomain).
void CycleRun::setWhy(GangId g, const Why& why) {
  GangState& gs = st_.gangs[g];
  if (waitsForCapacity(why.reason)) someone_waits_ = true;
  if (gs.why_reported && gs.why.sameApartFromDomain(why)) {
    gs.why.level = why.level;
    gs.why.domain = why.domain;
    gs.why.domain_pods = why.domain_pods;
    return;
  }
  gs.why = why;
  gs.why_reported = true;
  changed_.push_back(g);
}

void CycleRun::explainOrphans() {
  for (auto& [name, set] : st_.orphans) {
    for (GangId g : set) {
      Why why = baseWhy(g);
      why.reason = PendingReason::QueueNotFound;
      setWhy(g, why);
    }
  }
}

void CycleRun::report() {
  sortByName(changed_);
  changed_.erase(std::unique(changed_.begin(), changed_.end()), changed_.end());
  out_.explained.reserve(changed_.size());
  out_.queues.reserve(st_.queues_by_rank.size());
  for (GangId g : changed_)
    if (st_.gangs[g].present && !st_.gangs[g].running) out_.explained.push_back(st_.gangName(g));
  for (QueueId q : st_.queues_by_rank) out_.queues.push_back(statusOf(st_, q));
}

// Sorts gangs by name. Each gang's name key (EngineState::name_keys) goes next to its
// id, so most comparisons touch neither the gang nor its string; equal keys fall back to
// the whole names. Same order as comparing the strings. A full cycle explains every
// pending gang, so this sorts all of them: by the keys' high then low halves with a radix
// sort (Boost's spreadsort), each run of equal halves on its own, which takes a fraction of
// the comparisons a comparison sort makes over the same keys.
void CycleRun::sortByName(std::vector<GangId>& gangs) const {
  struct Keyed {
    std::uint64_t hi, lo;
    GangId gang;
  };
  std::vector<Keyed> keyed;
  keyed.reserve(gangs.size());
  for (GangId g : gangs) {
    const NameKey& k = st_.name_keys[g];
    keyed.push_back(Keyed{k.hi, k.lo, g});
  }
  using It = std::vector<Keyed>::iterator;
  // Sorts [first, last) by one half of the key, then each run of equal halves by `next`.
  auto byHalf = [](It first, It last, std::uint64_t Keyed::*half, auto&& next) {
    boost::sort::spreadsort::integer_sort(
        first, last, [half](const Keyed& k, unsigned shift) { return k.*half >> shift; },
        [half](const Keyed& a, const Keyed& b) { return a.*half < b.*half; });
    for (It run = first; run != last;) {
      const std::uint64_t value = (*run).*half;
      It end = std::find_if(run, last, [&](const Keyed& k) { return k.*half != value; });
      if (end - run > 1) next(run, end);
      run = end;
    }
  };
  auto byName = [&](It first, It last) {
    std::sort(first, last, [&](const Keyed& a, const Keyed& b) {
      return st_.gangName(a.gang) < st_.gangName(b.gang);
    });
  };
  byHalf(keyed.begin(), keyed.end(), &Keyed::hi,
         [&](It first, It last) { byHalf(first, last, &Keyed::lo, byName); });
  for (std::size_t i = 0; i < keyed.size(); ++i) gangs[i] = keyed[i].gang;
}

void CycleRun::admit(GangId g, std::vector<Pod> pods) {
  const bool on_reservation = st_.holdsReservation(g);
  dropReservation(st_, memo_, g);
  st_.startRunning(g, std::move(pods), now_);
  GangState& gs = st_.gangs[g];
  gs.started_on_reservation = on_reservation;
  gs.admitted_cycle = st_.cycle;
  Admission a;
  a.gang = gs.spec.name;
  a.queue = gs.spec.queue;
  a.pod_set_counts = gs.counts;
  a.variant = gs.spec.variant;
  a.pods.reserve(gs.pods.size());
  for (const Pod& p : gs.pods) a.pods.push_back(toPlacement(st_, p));
  admitted_at_.emplace_back(g, out_.admissions.size());
  out_.admissions.push_back(std::move(a));
}

// When g fits once terminating pods no earlier gang of this cycle counted on are gone:
// it waits for them (WaitingForReclaim naming their gangs), counting on their capacity
// and holding the free part of its placement until the cycle ends.
// `victims`: gangs this cycle evicted or shrank for g, named among those it waits for.
bool CycleRun::countOnTerminating(GangId g, const std::vector<std::int32_t>& counts, Why& why,
                                  const std::vector<GangId>& victims) {
  if (st_.terminating.empty()) return false;
  auto wait = waitForTerminating(st_, g, counts);
  if (!wait) return false;
  wait->gangs.insert(wait->gangs.end(), victims.begin(), victims.end());
  sortByName(wait->gangs);
  wait->gangs.erase(std::unique(wait->gangs.begin(), wait->gangs.end()), wait->gangs.end());
  // What later gangs may count on moved: answers shared within the walk no longer hold.
  memo_.noteWrite();
  counted_on_terminating_ = true;
  counted_on_by_last_ = true;
  pledges_.insert(pledges_.end(), wait->pledges.begin(), wait->pledges.end());
  const QueueId q = st_.gangs[g].queue;
  memo_.noteCountsOnTerminating(q);
  why.reason = PendingReason::WaitingForReclaim;
  why.blocking = wait->gangs.empty() ? std::string() : st_.gangName(wait->gangs.front());
  why.detail = describeTerminatingWait(st_, wait->gangs);
  return true;
}

// The end of the cycle: the free capacity waiting gangs held is free again. What they
// counted on is counted afresh next cycle, so memos that relied on it are voided.
void CycleRun::givePledgesBack() {
  for (const Pledge& p : pledges_)
    st_.releaseOnNode(p.node, p.held.requests, p.held.gpus, p.held.gpu_milli);
  if (counted_on_terminating_ && pledges_.empty()) ++st_.versions.release;
  pledges_.clear();
}

bool CycleRun::starving(GangId g) const {
  const GangState& gs = st_.gangs[g];
  return now_ - gs.spec.submit_time >= maxWait(st_.queues[static_cast<std::size_t>(gs.queue)]);
}

void CycleRun::preemptVictims(GangId preemptor_id, const std::vector<Victim>& victims) {
  const std::string& preemptor = st_.gangName(preemptor_id);
  // Shrinks of one gang are merged into one resize.
  std::vector<std::pair<GangId, std::vector<std::size_t>>> shrinks;
  for (const Victim& v : victims) {
    if (v.whole) continue;
    auto it = std::find_if(shrinks.begin(), shrinks.end(),
                           [&](const auto& s) { return s.first == v.gang; });
    if (it == shrinks.end())
      shrinks.emplace_back(v.gang, v.pods);
    else
      it->second.insert(it->second.end(), v.pods.begin(), v.pods.end());
  }
  for (auto& [v, pods] : shrinks) {
    GangState& vs = st_.gangs[v];
    std::sort(pods.begin(), pods.end());
    Resize r;
    r.gang = vs.spec.name;
    r.queue = vs.spec.queue;
    r.preemptor = preemptor;
    for (std::size_t i : pods) r.removed.push_back(toPlacement(st_, vs.pods[i]));
    st_.removePods(v, pods);
    shrunk_.push_back(v);
    r.pod_set_counts = vs.counts;
    out_.resizes.push_back(std::move(r));
  }
  for (const Victim& v : victims) {
    if (!v.whole) continue;
    GangState& vs = st_.gangs[v.gang];
    out_.preemptions.push_back(Preemption{vs.spec.name, vs.spec.queue, preemptor, v.reason});
    st_.stopRunning(v.gang);
    vs.evicted_cycle = st_.cycle;
    Why why = baseWhy(v.gang);
    why.reason = PendingReason::Preempted;
    why.blocking = preemptor;
    setWhy(v.gang, why);
  }
  // Capacity came free: earlier "does not fit" answers may no longer hold.
  memo_.capacityMayHaveGrown(st_);
}

bool CycleRun::shrunk(GangId g) const {
  return std::find(shrunk_.begin(), shrunk_.end(), g) != shrunk_.end();
}

void CycleRun::grew(GangId g, std::vector<Pod> added) {
  const GangState& gs = st_.gangs[g];
  // Admitted this cycle at its minimum: the admission simply gets the extra pods.
  for (const auto& [admitted, index] : admitted_at_) {
    if (admitted != g) continue;
    Admission& a = out_.admissions[index];
    a.pod_set_counts = gs.counts;
    a.variant = gs.spec.variant;
    for (const Pod& p : added) a.pods.push_back(toPlacement(st_, p));
    return;
  }
  Resize r;
  r.gang = gs.spec.name;
  r.queue = gs.spec.queue;
  r.pod_set_counts = gs.counts;
  for (const Pod& p : added) r.added.push_back(toPlacement(st_, p));
  out_.resizes.push_back(std::move(r));
}

}  // namespace troupe::queueing
