#include "queueing/cohort_quota_policy.h"

#include <algorithm>
#include <limits>
#include <string>

#include "queueing/covered_resources.h"
#include "queueing/gang_fit.h"

namespace troupe::queueing {

// What each ClusterQueue (leaf) and cohort (its parent) uses of its quota in this cycle:
// its running gangs' requests plus the full requests of its gangs holding quota.
struct CohortQuotaPolicy::Quota {
  const EngineState& st;
  std::array<bool, kMaxResources> covered;
  std::vector<ResourceVector> use;  // by QueueId: leaves and cohorts
  std::vector<ResourceVector> cap;  // by QueueId of a cohort: its members' nominal quotas
  // The smallest GPU request of each ClusterQueue for which preemption found nothing this
  // cycle: a larger one finds nothing either.
  std::vector<std::int64_t> no_victims;

  QueueId cohortOf(QueueId q) const { return st.queues[static_cast<std::size_t>(q)].parent; }
  const ResourceVector& nominal(QueueId q) const {
    return st.queues[static_cast<std::size_t>(q)].spec.guaranteed;
  }
  void add(QueueId q, const ResourceVector& v) {
    use[static_cast<std::size_t>(q)] += v;
    if (const QueueId c = cohortOf(q); c >= 0) use[static_cast<std::size_t>(c)] += v;
  }
  void take(QueueId q, const ResourceVector& v) { add(q, ResourceVector{} - v); }
  // Whether q may hold `more` on top of what it uses: within its nominal quota plus what it
  // may borrow, and within its cohort's quota.
  bool fits(QueueId q, const ResourceVector& more, bool empty = false) const {
    const QueueState& qs = st.queues[static_cast<std::size_t>(q)];
    const QueueId c = cohortOf(q);
    for (std::size_t r = 0; r < kMaxResources; ++r) {
      if (!covered[r]) continue;
      const std::int64_t own = empty ? 0 : use[static_cast<std::size_t>(q)][r];
      std::int64_t most = qs.spec.guaranteed[r];
      if (c >= 0) {
        const std::int64_t limit = qs.spec.limit[r];
        most = limit == ResourceVector::kUnlimited ? std::numeric_limits<std::int64_t>::max()
                                                   : std::max(limit, most);
        const std::int64_t cohort = empty ? 0 : use[static_cast<std::size_t>(c)][r];
        if (cohort + more[r] > cap[static_cast<std::size_t>(c)][r]) return false;
      }
      if (own + more[r] > most) return false;
    }
    return true;
  }
  bool withinNominal(QueueId q, const ResourceVector& more) const {
    for (std::size_t r = 0; r < kMaxResources; ++r)
      if (covered[r] && use[static_cast<std::size_t>(q)][r] + more[r] > nominal(q)[r]) return false;
    return true;
  }
  bool borrowing(QueueId q) const { return !withinNominal(q, ResourceVector{}); }
};

namespace {

const SharedText& heldQuotaDetail() {
  static const SharedText text(
      "admitted: quota is reserved for the whole gang, and its pods wait for nodes with room");
  return text;
}

const SharedText& noQuotaDetail() {
  static const SharedText text(
      "no quota: its ClusterQueue's nominal quota and what it may borrow from its cohort are "
      "used, and no gang may be preempted for it");
  return text;
}

}  // namespace

void CohortQuotaPolicy::pendingRemoved(GangId g) { unreserve(g); }

void CohortQuotaPolicy::unreserve(GangId g) {
  if (holds_quota_.size() <= g || !holds_quota_[g]) return;
  holds_quota_[g] = 0;
  reserved_.erase(std::find(reserved_.begin(), reserved_.end(), g));
}

void CohortQuotaPolicy::reserve(Quota& quota, GangId g) {
  if (holds_quota_.size() <= g) {
    holds_quota_.resize(std::max<std::size_t>(st_.gangs.size(), g + 1), 0);
    reserved_at_.resize(holds_quota_.size(), 0);
  }
  holds_quota_[g] = 1;
  reserved_at_[g] = st_.last_now;
  reserved_.push_back(g);
  quota.add(st_.gangs[g].queue, st_.gangs[g].full_request);
}

// kube-scheduler's part: the pods of a gang holding quota, on free capacity.
bool CohortQuotaPolicy::place(CycleRun& run, GangId g) {
  EngineState& st = run.state();
  PlaceOptions o;
  o.self = g;
  Placement p = placeGang(st, g, fullCounts(st.gangs[g]), o);
  if (p.ok) {
    run.admit(g, std::move(p.pods));  // pendingRemoved: the quota is now held by running pods
    return true;
  }
  Why why = run.baseWhy(g);
  why.reason = PendingReason::NoPlacement;
  why.level = p.level;
  why.domain = p.domain;
  why.domain_pods = p.domain_pods;
  why.detail = heldQuotaDetail();
  namePlacementShortage(st.gangs[g], why);
  run.setWhy(g, why);
  return false;
}

bool CohortQuotaPolicy::preemptFor(CycleRun& run, Quota& quota, GangId g) {
  EngineState& st = run.state();
  const GangState& gs = st.gangs[g];
  const QueueId q = gs.queue;
  const ResourceVector& req = gs.full_request;
  const auto qi = static_cast<std::size_t>(q);
  if (req[kGpu] >= quota.no_victims[qi]) return false;
  const QueueId cohort = quota.cohortOf(q);
  // reclaimWithinCohort: only while the gang keeps its ClusterQueue within nominal quota.
  const bool reclaim = cohort >= 0 && quota.withinNominal(q, req);
  struct Candidate {
    GangId gang;
    bool other_queue;
    std::int32_t priority;
    Seconds admitted;
  };
  std::vector<Candidate> candidates;
  auto consider = [&](GangId c) {
    const GangState& cs = st.gangs[c];
    const bool other = cs.queue != q;
    if (other ? !reclaim : cs.spec.priority >= gs.spec.priority) return;
    if (cs.running && (!cs.spec.preemptible || cs.terminating > 0)) return;
    // Never a victim in the cycle that admitted it (decisions.h: a cycle does not undo its
    // own steps).
    if (cs.running ? cs.admitted_cycle == st.cycle : reserved_at_[c] == run.now()) return;
    const Seconds at = cs.running ? cs.start_time : reserved_at_[c];
    candidates.push_back(Candidate{c, other, cs.spec.priority, at});
  };
  for (QueueId l = 0; l < static_cast<QueueId>(st.queues.size()); ++l) {
    const QueueState& ls = st.queues[static_cast<std::size_t>(l)];
    if (!ls.present || !ls.leaf() || (l != q && (cohort < 0 || ls.parent != cohort))) continue;
    for (GangId c : ls.running) consider(c);
  }
  for (GangId c : reserved_) {
    const QueueId cq = st.gangs[c].queue;
    if (cq == q || (cohort >= 0 && quota.cohortOf(cq) == cohort)) consider(c);
  }
  std::sort(candidates.begin(), candidates.end(), [&](const Candidate& a, const Candidate& b) {
    if (a.other_queue != b.other_queue) return a.other_queue;
    if (a.priority != b.priority) return a.priority < b.priority;
    if (a.admitted != b.admitted) return a.admitted > b.admitted;
    return st.gangName(a.gang) < st.gangName(b.gang);
  });
  auto usageOf = [&](GangId c) -> const ResourceVector& {
    return st.gangs[c].running ? st.gangs[c].held : st.gangs[c].full_request;
  };
  std::vector<Candidate> chosen;
  bool fits = false;
  for (const Candidate& c : candidates) {
    const QueueId cq = st.gangs[c.gang].queue;
    // A member no longer above its nominal quota lends nothing more.
    if (c.other_queue && !quota.borrowing(cq)) continue;
    quota.take(cq, usageOf(c.gang));
    chosen.push_back(c);
    if (quota.fits(q, req)) {
      fits = true;
      break;
    }
  }
  if (!fits) {
    for (const Candidate& c : chosen) quota.add(st.gangs[c.gang].queue, usageOf(c.gang));
    quota.no_victims[qi] = std::min(quota.no_victims[qi], req[kGpu]);
    return false;
  }
  // The fewest: give back, from the last but one to the first, each victim the gang fits
  // without.
  for (std::size_t i = chosen.size() - 1; i-- > 0;) {
    const QueueId cq = st.gangs[chosen[i].gang].queue;
    quota.add(cq, usageOf(chosen[i].gang));
    if (quota.fits(q, req)) {
      chosen.erase(chosen.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      quota.take(cq, usageOf(chosen[i].gang));
    }
  }
  std::vector<Victim> victims;
  for (const Candidate& c : chosen) {
    if (!st.gangs[c.gang].running) {
      unreserve(c.gang);
      Why why = run.baseWhy(c.gang);
      why.reason = PendingReason::Preempted;
      why.blocking = gs.spec.name;
      run.setWhy(c.gang, why);
      continue;
    }
    victims.push_back(
        Victim{c.gang,
               true,
               {},
               c.other_queue ? PreemptionReason::Reclaim : PreemptionReason::WithinQueue});
  }
  if (!victims.empty()) run.preemptVictims(g, victims);
  return true;
}

bool CohortQuotaPolicy::tryToAdmit(CycleRun& run, Quota& quota, GangId g) {
  EngineState& st = run.state();
  const GangState& gs = st.gangs[g];
  Why why = run.baseWhy(g);
  if (!quota.fits(gs.queue, gs.full_request, true) || !run.memo().fitsEver(st, g, fullCounts(gs))) {
    why.reason = PendingReason::Inadmissible;
    run.setWhy(g, why);
    return false;
  }
  if (!quota.fits(gs.queue, gs.full_request) && !preemptFor(run, quota, g)) {
    why.reason = PendingReason::QueueAtLimit;
    why.quota_level = gs.queue;
    why.detail = noQuotaDetail();
    run.setWhy(g, why);
    return false;
  }
  reserve(quota, g);
  place(run, g);
  return true;
}

void CohortQuotaPolicy::admit(CycleRun& run) {
  EngineState& st = run.state();
  const std::size_t nq = st.queues.size();
  Quota quota{st, coveredResources(st), std::vector<ResourceVector>(nq),
              std::vector<ResourceVector>(nq),
              std::vector<std::int64_t>(nq, std::numeric_limits<std::int64_t>::max())};
  for (QueueId q = 0; q < static_cast<QueueId>(nq); ++q) {
    const QueueState& qs = st.queues[static_cast<std::size_t>(q)];
    if (!qs.present || !qs.leaf()) continue;
    quota.add(q, qs.allocated);
    if (const QueueId c = qs.parent; c >= 0)
      quota.cap[static_cast<std::size_t>(c)] += qs.spec.guaranteed;
  }
  for (GangId g : reserved_) quota.add(st.gangs[g].queue, st.gangs[g].full_request);

  // kube-scheduler: pods of admitted gangs, by priority, then admission order.
  std::vector<GangId> waiting = reserved_;
  std::stable_sort(waiting.begin(), waiting.end(), [&](GangId a, GangId b) {
    return st.gangs[a].spec.priority > st.gangs[b].spec.priority;
  });
  for (GangId g : waiting) place(run, g);

  // Kueue: the ClusterQueues' heads, round after round.
  std::vector<std::vector<GangId>> order(nq);
  std::vector<std::size_t> next(nq, 0);
  for (QueueId q : st.queues_by_rank) {
    QueueState& qs = st.queues[static_cast<std::size_t>(q)];
    if (!qs.leaf() || qs.pending.empty()) continue;
    auto& list = order[static_cast<std::size_t>(q)];
    qs.pending.beginWalk();
    for (GangId g = qs.pending.next(); g != kNoGang; g = qs.pending.next())
      if (holds_quota_.size() <= g || !holds_quota_[g]) list.push_back(g);
    qs.pending.endWalk();
  }
  std::vector<GangId> heads;
  for (;;) {
    heads.clear();
    for (QueueId q : st.queues_by_rank) {
      const auto qi = static_cast<std::size_t>(q);
      while (next[qi] < order[qi].size()) {
        const GangId g = order[qi][next[qi]];
        // Preempted in this cycle: it is tried again in the next.
        if (st.gangs[g].running || st.gangs[g].evicted_cycle == st.cycle ||
            (holds_quota_.size() > g && holds_quota_[g])) {
          ++next[qi];
          continue;
        }
        heads.push_back(g);
        break;
      }
    }
    if (heads.empty()) break;
    auto borrows = [&](GangId g) {
      return !quota.withinNominal(st.gangs[g].queue, st.gangs[g].full_request);
    };
    std::sort(heads.begin(), heads.end(), [&](GangId a, GangId b) {
      const GangSpec& x = st.gangs[a].spec;
      const GangSpec& y = st.gangs[b].spec;
      if (borrows(a) != borrows(b)) return !borrows(a);
      if (x.priority != y.priority) return x.priority > y.priority;
      if (x.submit_time != y.submit_time) return x.submit_time < y.submit_time;
      return x.name < y.name;
    });
    for (GangId g : heads) {
      ++next[static_cast<std::size_t>(st.gangs[g].queue)];
      tryToAdmit(run, quota, g);
    }
  }
}

}  // namespace troupe::queueing
