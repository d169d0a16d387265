#include "queueing/cycle.h"

#include <algorithm>
#include <functional>
#include <queue>

#include "queueing/fair_share.h"
#include "queueing/gang_placer.h"
#include "queueing/preemption.h"
#include "queueing/queue_limits.h"
#include "queueing/queue_turn.h"
#include "queueing/state_reports.h"
#include "queueing/terminating_wait.h"

namespace troupe::queueing {
namespace {

class Cycle {
 public:
  Cycle(EngineState& st, AnswerMemo& memo, Seconds now, Decisions& out)
      : st_(st), memo_(memo), now_(now), out_(out) {}

  void run() {
    st_.refreshIndexes();
    if (st_.shares_dirty) computeShares();
    restoreReservations();
    memo_.startCycle(st_, now_);
    st_.terminating.forgetClaims();
    if (st_.policy.kind == PolicyKind::Fifo) {
      runFifo();
    } else {
      runFairShare();
      if (st_.policy.elastic_growth && !someone_waits_) grow();
    }
    givePledgesBack();
    explainOrphans();
    report();
    wakeUp();
  }

 private:
  // ---- fair shares and ordering ------------------------------------------------------

  void computeShares() {
    st_.shares_dirty = false;
    std::vector<QueueId> order;
    std::vector<int> index(st_.queues.size(), -1);
    for (QueueId q : st_.queues_by_rank)
      if (st_.queues[static_cast<std::size_t>(q)].parent < 0) order.push_back(q);
    for (std::size_t i = 0; i < order.size(); ++i)
      for (QueueId c : st_.queues[static_cast<std::size_t>(order[i])].children) order.push_back(c);
    std::vector<FairShareQueue> in;
    in.reserve(order.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
      const QueueState& q = st_.queues[static_cast<std::size_t>(order[i])];
      index[static_cast<std::size_t>(order[i])] = static_cast<int>(i);
      in.push_back(
          FairShareQueue{.parent = q.parent < 0 ? -1 : index[static_cast<std::size_t>(q.parent)],
                         .guaranteed = q.spec.guaranteed,
                         .limit = q.spec.limit,
                         .lending_limit = q.spec.lending_limit,
                         .over_quota_weight = q.spec.over_quota_weight,
                         .priority = q.spec.priority,
                         .demand = q.demand});
    }
    const auto shares = computeFairShares(in, st_.usable_capacity);
    bool moved = false;
    for (std::size_t i = 0; i < order.size(); ++i) {
      ResourceVector& fair = st_.queues[static_cast<std::size_t>(order[i])].fair_share;
      moved = moved || !(fair == shares[i]);
      fair = shares[i];
    }
    if (moved) ++st_.versions.alloc;  // shares are inputs of preemption and ordering
  }

  Seconds maxWait(const QueueState& q) const {
    return q.spec.max_wait_seconds.value_or(st_.policy.default_max_wait_seconds);
  }

  bool starving(GangId g) const {
    const GangState& gs = st_.gangs[g];
    return now_ - gs.spec.submit_time >= maxWait(st_.queues[static_cast<std::size_t>(gs.queue)]);
  }

  // ---- explanations ------------------------------------------------------------------

  Why baseWhy(GangId g) const {
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
  void setWhy(GangId g, const Why& why) {
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

  void explainOrphans() {
    for (auto& [name, set] : st_.orphans) {
      for (GangId g : set) {
        Why why = baseWhy(g);
        why.reason = PendingReason::QueueNotFound;
        setWhy(g, why);
      }
    }
  }

  void report() {
    sortByName(changed_);
    changed_.erase(std::unique(changed_.begin(), changed_.end()), changed_.end());
    out_.explained.reserve(changed_.size());
    out_.queues.reserve(st_.queues_by_rank.size());
    for (GangId g : changed_)
      if (st_.gangs[g].present && !st_.gangs[g].running) out_.explained.push_back(st_.gangName(g));
    for (QueueId q : st_.queues_by_rank) out_.queues.push_back(statusOf(st_, q));
  }

  // The earliest moment a cycle would decide differently with no delta (decisions.h).
  void wakeUp() {
    if (st_.policy.kind == PolicyKind::Fifo) return;  // FIFO depends on no clock
    Seconds next = kNever;
    auto consider = [&](Seconds t) {
      if (t > now_ && t < next) next = t;
    };
    // A queue not examined this cycle kept the value of its last examination, which
    // still holds: it is skipped only while nothing of it changed and now < next_starving.
    if (st_.policy.backfill)
      for (QueueId q : st_.queues_by_rank) {
        const QueueState& qs = st_.queues[static_cast<std::size_t>(q)];
        if (qs.leaf() && !qs.pending.empty()) consider(memo_.look(q).next_starving);
      }
    consider(memo_.protectionExpiry());
    for (const Reservation& r : st_.reservations) consider(r.shadow_time);
    if (next != kNever) out_.next_wakeup = next;
  }

  // Sorts gangs by name. Each gang's name key (EngineState::name_keys) goes next to its
  // id, so most comparisons touch neither the gang nor its string; equal keys fall back to
  // the whole names. Same order as comparing the strings.
  void sortByName(std::vector<GangId>& gangs) const {
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
    std::sort(keyed.begin(), keyed.end(), [&](const Keyed& a, const Keyed& b) {
      if (a.hi != b.hi) return a.hi < b.hi;
      if (a.lo != b.lo) return a.lo < b.lo;
      if (a.gang == b.gang) return false;
      return st_.gangName(a.gang) < st_.gangName(b.gang);
    });
    for (std::size_t i = 0; i < keyed.size(); ++i) gangs[i] = keyed[i].gang;
  }

  // ---- the counts of the gang being tried --------------------------------------------

  void fillCounts(GangId g) {
    least_.clear();
    full_.clear();
    for (const auto& ps : st_.gangs[g].spec.pod_sets) {
      least_.push_back(ps.min_count);
      full_.push_back(ps.count);
    }
  }

  std::vector<std::int32_t> minCounts(GangId g) const {
    std::vector<std::int32_t> c;
    for (const auto& ps : st_.gangs[g].spec.pod_sets) c.push_back(ps.min_count);
    return c;
  }
  std::vector<std::int32_t> fullCounts(GangId g) const {
    std::vector<std::int32_t> c;
    for (const auto& ps : st_.gangs[g].spec.pod_sets) c.push_back(ps.count);
    return c;
  }

  // ---- decisions ---------------------------------------------------------------------

  void admit(GangId g, std::vector<Pod> pods) {
    dropReservation(g);
    st_.startRunning(g, std::move(pods), now_);
    GangState& gs = st_.gangs[g];
    gs.admitted_cycle = st_.cycle;
    Admission a;
    a.gang = gs.spec.name;
    a.queue = gs.spec.queue;
    a.pod_set_counts = gs.counts;
    a.pods.reserve(gs.pods.size());
    for (const Pod& p : gs.pods) a.pods.push_back(toPlacement(st_, p));
    admitted_at_.emplace_back(g, out_.admissions.size());
    out_.admissions.push_back(std::move(a));
  }

  // Carries out a preemption plan: evicts and shrinks its victims, then admits g, or, when
  // its placement also counts on terminating capacity, leaves it waiting for that.
  // Returns whether g was admitted.
  bool applyPlan(GangId g, PreemptionPlan& plan) {
    const std::string& preemptor = st_.gangName(g);
    // Shrinks of one gang are merged into one resize.
    std::vector<std::pair<GangId, std::vector<std::size_t>>> shrinks;
    for (const Victim& v : plan.victims) {
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
    for (const Victim& v : plan.victims) {
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
    if (fitsNow(g, plan.pods)) {
      admit(g, std::move(plan.pods));
      return true;
    }
    // The search counted on capacity terminating pods still hold: the gang waits for them
    // and for its victims, holding what is free of its placement for the rest of the cycle.
    Why why = baseWhy(g);
    std::vector<GangId> victims;
    for (const Victim& v : plan.victims) victims.push_back(v.gang);
    if (!countOnTerminating(g, least_, why, victims)) {
      why.reason = PendingReason::WaitingForReclaim;
      why.detail = std::string("waiting for terminating pods to free the capacity it needs");
    }
    setWhy(g, why);
    return false;
  }

  // Whether `pods` of gang g fit on free capacity as it is now.
  bool fitsNow(GangId g, const std::vector<Pod>& pods) const {
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
      return (node.free_gpus & t.second.gpus) == t.second.gpus &&
             t.second.requests.fitsIn(node.free);
    });
  }

  // ---- terminating capacity ----------------------------------------------------------

  // When g fits once terminating pods no earlier gang of this cycle counted on are gone:
  // it waits for them (WaitingForReclaim naming their gangs), counting on their capacity
  // and holding the free part of its placement until the cycle ends.
  // `victims`: gangs this cycle evicted or shrank for g, named among those it waits for.
  bool countOnTerminating(GangId g, const std::vector<std::int32_t>& counts, Why& why,
                          const std::vector<GangId>& victims = {}) {
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
    memo_.noteCountsOnTerminating(st_.gangs[g].queue);
    why.reason = PendingReason::WaitingForReclaim;
    why.blocking = wait->gangs.empty() ? std::string() : st_.gangName(wait->gangs.front());
    why.detail = describeTerminatingWait(st_, wait->gangs);
    return true;
  }

  // The end of the cycle: the free capacity waiting gangs held is free again. What they
  // counted on is counted afresh next cycle, so memos that relied on it are voided.
  void givePledgesBack() {
    for (const Pledge& p : pledges_) st_.releaseOnNode(p.node, p.held.requests, p.held.gpus);
    if (counted_on_terminating_ && pledges_.empty()) ++st_.versions.release;
    pledges_.clear();
  }

  // ---- reservations (backfill) -------------------------------------------------------

  // When the running gangs on `nodes` are all expected to have ended: the latest start +
  // runtime estimate among them (not before now), kNever if one has no estimate.
  Seconds shadowTime(const std::vector<NodeId>& nodes) const {
    // The gangs on each node come from its index (NodeState::gangs), so a reservation
    // costs its nodes' pods, not a pass over every running pod.
    Seconds shadow = now_;
    for (NodeId n : nodes) {
      for (GangId r : st_.nodes[n].gangs) {
        const GangState& rs = st_.gangs[r];
        if (rs.queue < 0) continue;  // as the queues' running sets hold them
        shadow = std::max(
            shadow, rs.spec.runtime_estimate ? rs.start_time + *rs.spec.runtime_estimate : kNever);
      }
    }
    return shadow;
  }

  void markReservation(const Reservation& r) {
    for (NodeId n : r.nodes) {
      st_.nodes[n].reserved_for = r.gang;
      st_.nodes[n].reserved_until = r.shadow_time;
    }
  }

  void restoreReservations() {
    for (NodeState& n : st_.nodes) n.reserved_for = kNoGang;
    std::vector<Reservation> kept;
    for (Reservation& r : st_.reservations) {
      if (r.gang == kNoGang) continue;
      const GangState& gs = st_.gangs[r.gang];
      if (!gs.present || gs.running || gs.queue < 0) continue;
      const bool nodes_ok = std::all_of(r.nodes.begin(), r.nodes.end(),
                                        [&](NodeId n) { return st_.nodes[n].usable(); });
      if (!nodes_ok) continue;
      r.shadow_time = shadowTime(r.nodes);
      markReservation(r);
      kept.push_back(std::move(r));
    }
    if (kept.size() != st_.reservations.size()) {
      ++st_.versions.release;
      ++st_.versions.reservations;
    }
    st_.reservations = std::move(kept);
  }

  bool reserve(GangId g, const std::vector<std::int32_t>& counts) {
    if (static_cast<int>(st_.reservations.size()) >= st_.policy.max_reservations) return false;
    PlaceOptions o;
    o.self = g;
    o.empty_cluster = true;
    const Placement p = placeGang(st_, g, counts, o);
    if (!p.ok) return false;
    Reservation r;
    r.gang = g;
    for (const Pod& pod : p.pods) r.nodes.push_back(pod.node);
    std::sort(r.nodes.begin(), r.nodes.end());
    r.nodes.erase(std::unique(r.nodes.begin(), r.nodes.end()), r.nodes.end());
    r.shadow_time = shadowTime(r.nodes);
    markReservation(r);
    st_.reservations.push_back(std::move(r));
    return true;
  }

  void dropReservation(GangId g) {
    auto it = std::find_if(st_.reservations.begin(), st_.reservations.end(),
                           [&](const Reservation& r) { return r.gang == g; });
    if (it == st_.reservations.end()) return;
    for (NodeId n : it->nodes)
      if (st_.nodes[n].reserved_for == g) st_.nodes[n].reserved_for = kNoGang;
    st_.reservations.erase(it);
    ++st_.versions.release;  // its nodes are open to others again
    ++st_.versions.reservations;
    memo_.capacityMayHaveGrown(st_);
  }

  // ---- one gang ----------------------------------------------------------------------

  // Starts loading the parts of g's state that tryGang and setWhy read first; only its
  // explanation when it will most likely be given an answer shared in the walk.
  void prefetchGang(GangId g, bool answered) const {
    const GangState& gs = st_.gangs[g];
    __builtin_prefetch(&gs.why);
    __builtin_prefetch(&gs.evicted_cycle);
    if (answered) return;
    __builtin_prefetch(&gs.spec.pod_sets);
    __builtin_prefetch(&gs.min_request);
  }

  // The second step: the arrays the gang's state points to, which prefetchGang() loaded.
  void prefetchPodSets(GangId g) const {
    const GangState& gs = st_.gangs[g];
    __builtin_prefetch(gs.spec.pod_sets.data());
    __builtin_prefetch(gs.classes.data());
  }

  // Tries to admit g; returns true when it was. Otherwise records why it waits.
  bool tryGang(GangId g) {
    counted_on_by_last_ = false;
    GangState& gs = st_.gangs[g];
    const QueueId q = gs.queue;
    Why why = baseWhy(g);
    if (gs.evicted_cycle == st_.cycle) return false;  // its Why was set at eviction
    if (!withinLimits(st_, q, gs.min_request)) {
      why.reason = PendingReason::QueueAtLimit;
      setWhy(g, why);
      return false;
    }
    PlaceOptions o;
    o.self = g;
    if (gs.spec.runtime_estimate) o.backfill_end = now_ + *gs.spec.runtime_estimate;

    fillCounts(g);
    const std::vector<std::int32_t>& full = full_;
    const std::vector<std::int32_t>& least = least_;
    if (full != least && withinLimits(st_, q, gs.full_request)) {
      Placement p = memo_.place(st_, g, full, o);
      if (p.ok) {
        admit(g, std::move(p.pods));
        return true;
      }
    }
    Placement p = memo_.place(st_, g, least, o);
    if (p.ok) {
      admit(g, std::move(p.pods));
      return true;
    }
    why.level = p.level;
    why.domain = p.domain;
    why.domain_pods = p.domain_pods;
    if (!memo_.fitsEver(st_, g, least)) {
      why.reason = gs.spec.topology.mode == TopologyMode::Required
                       ? PendingReason::TopologyUnsatisfiable
                       : PendingReason::Unschedulable;
      setWhy(g, why);
      return false;
    }

    why.reason = PendingReason::NoPlacement;
    // Capacity terminating pods hold comes back by itself: a gang that fits once it is
    // back waits for it, and nobody is preempted for it.
    if (st_.policy.preemption && countOnTerminating(g, least, why)) {
      setWhy(g, why);
      return false;
    }
    if (st_.policy.preemption) {
      const bool known = memo_.preemptionKnownToFail(st_, g, least, why);
      // Not searched for want of budget: its answer is unknown, so any move may change it.
      if (!known && searches_ >= st_.policy.max_preemption_searches) memo_.markPreemptVolatile(q);
      if (!known && searches_ < st_.policy.max_preemption_searches) {
        PreemptionPlan plan = planPreemption(st_, g, least, now_, memo_.candidatePool(st_.policy));
        if (plan.searched) ++searches_;
        memo_.noteProtectedUntil(plan.protected_until);
        if (plan.ok) return applyPlan(g, plan);
        why.reason = plan.reason;
        why.detail = plan.detail;
        memo_.rememberPreemptionFailure(st_, g, least, why, plan);
      }
    }
    if (why.reason == PendingReason::NoPlacement && !st_.reservations.empty() &&
        !st_.holdsReservation(g)) {
      PlaceOptions ignore = o;
      ignore.ignore_reservations = true;
      if (memo_.fitsIgnoringReservations(st_, g, least, ignore)) {
        why.reason = PendingReason::BlockedByStarvingJob;
        why.blocking = firstBlockingReservation(g, least);
      }
    }
    if (st_.policy.backfill && starving(g) && (st_.holdsReservation(g) || reserve(g, least))) {
      why.reason = PendingReason::Reserved;
      why.blocking.clear();
    }
    setWhy(g, why);
    return false;
  }

  std::string firstBlockingReservation(GangId, const std::vector<std::int32_t>&) const {
    return st_.reservations.empty() ? std::string() : st_.gangName(st_.reservations.front().gang);
  }

  // ---- the passes --------------------------------------------------------------------

  // The walk starts loading the state of the gang kAhead places after the next one (the
  // pending list's ahead(kAhead)). Most visits only hand a gang the answer an earlier gang
  // of its ask got, under 100 ns each, so a load started two visits ahead was still on its
  // way when the gang came up: nine ahead took a tenth off the full cycle and the slowest
  // completions at 100 queues of 1,000 gangs (docs/benchmarks.md); 7 to 17 did as well.
  static constexpr std::size_t kAhead = 8;

  // For prefetching only: whether a gang of this ask would find a shared answer now.
  bool likelyAnswered(const PendingList::Ask& ask, const QueueState& qs) const {
    return memo_.askMayShare(st_.policy, ask, now_, maxWait(qs)) && memo_.answered(ask);
  }

  void runFairShare() {
    std::priority_queue<QueueTurn, std::vector<QueueTurn>, std::greater<>> heap;
    const std::size_t nq = st_.queues.size();
    std::vector<std::uint8_t> started(nq, 0);
    std::vector<std::string> blocked_by(nq);
    for (QueueId q : st_.queues_by_rank) {
      const QueueState& qs = st_.queues[static_cast<std::size_t>(q)];
      if (qs.leaf() && !qs.pending.empty()) heap.push(queueTurn(st_, q));
    }
    while (!heap.empty()) {
      const QueueId q = heap.top().queue;
      heap.pop();
      const auto qi = static_cast<std::size_t>(q);
      QueueState& qs = st_.queues[qi];
      QueueLook& look = memo_.look(q);
      if (!started[qi] && st_.policy.skip_unchanged_queues &&
          memo_.unchanged(st_, q, now_, searches_ < st_.policy.max_preemption_searches)) {
        someone_waits_ = someone_waits_ || look.waits;
        continue;
      }
      if (!started[qi]) memo_.beginLook(st_, q);
      // A queue's walk resumes where it paused when it comes back after an admission.
      if (!started[qi]) qs.pending.beginWalk();
      started[qi] = 1;
      // Answers are shared within one stretch of one queue's walk only.
      memo_.forgetAnswers();
      bool admitted = false;
      for (GangId g = qs.pending.next(); g != kNoGang; g = qs.pending.next()) {
        const PendingList::Ask ask = qs.pending.visitedAsk();
        // The next gangs' state is far from this one's: fetch it while this one is tried,
        // in the two steps tryGang reads it (the pod sets' address is in the gang's state),
        // and only the explanation of a gang whose ask was answered in this stretch.
        if (const GangId after = qs.pending.ahead(kAhead); after != kNoGang)
          prefetchGang(after, likelyAnswered(qs.pending.aheadAsk(kAhead), qs));
        if (const GangId after = qs.pending.ahead(0); after != kNoGang)
          if (!likelyAnswered(qs.pending.aheadAsk(0), qs)) prefetchPodSets(after);
        if (!blocked_by[qi].empty() && st_.gangs[g].evicted_cycle != st_.cycle) {
          // Without backfill the queue is FIFO: nothing passes its first waiting gang.
          Why why = baseWhy(g);
          why.reason = PendingReason::BlockedByQueueHead;
          why.blocking = blocked_by[qi];
          setWhy(g, why);
          continue;
        }
        const bool may_share =
            memo_.askMayShare(st_.policy, ask, now_, maxWait(qs)) && !st_.holdsReservation(g);
        if (may_share && st_.gangs[g].evicted_cycle != st_.cycle) {
          if (const Why* shared = memo_.sharedAnswer(st_, ask)) {
            // As below for a gang that waits, with what the first gang of the ask noted.
            setWhy(g, *shared);
            if (waitsForCapacity(shared->reason)) look.waits = true;
            const Seconds starves = ask.submit_time + maxWait(qs);
            if (starves > now_) look.next_starving = std::min(look.next_starving, starves);
            if (!st_.policy.backfill && waitsForCapacity(shared->reason))
              blocked_by[qi] = st_.gangName(g);
            continue;
          }
        }
        if (tryGang(g)) {
          admitted = true;
          break;
        }
        const GangState& gs = st_.gangs[g];
        // A gang that counted on terminating capacity took its share of it: the next gang
        // of its ask is tried for itself.
        if (may_share && gs.evicted_cycle != st_.cycle && !counted_on_by_last_)
          memo_.shareAnswer(st_, ask, gs.why);
        memo_.noteWaiting(st_, q, g, starving(g));
        if (waitsForCapacity(gs.why.reason)) look.waits = true;
        const Seconds starves = gs.spec.submit_time + maxWait(qs);
        if (starves > now_) look.next_starving = std::min(look.next_starving, starves);
        if (!st_.policy.backfill && waitsForCapacity(gs.why.reason))
          blocked_by[qi] = st_.gangName(g);
      }
      if (admitted && qs.pending.peek() != kNoGang) heap.push(queueTurn(st_, q));
    }
    for (std::size_t qi = 0; qi < nq; ++qi)
      if (started[qi]) st_.queues[qi].pending.endWalk();
  }

  void runFifo() {
    std::vector<GangId> order(st_.fifo.begin(), st_.fifo.end());
    std::string head;
    for (GangId g : order) {
      GangState& gs = st_.gangs[g];
      Why why = baseWhy(g);
      if (!head.empty()) {
        why.reason = PendingReason::BlockedByQueueHead;
        why.blocking = head;
        setWhy(g, why);
        continue;
      }
      if (!withinLimits(st_, gs.queue, gs.min_request)) {
        why.reason = PendingReason::QueueAtLimit;
        setWhy(g, why);
        head = gs.spec.name;
        continue;
      }
      PlaceOptions o;
      o.self = g;
      const auto full = fullCounts(g);
      const auto least = minCounts(g);
      if (full != least && withinLimits(st_, gs.queue, gs.full_request)) {
        Placement p = placeGang(st_, g, full, o);
        if (p.ok) {
          admit(g, std::move(p.pods));
          continue;
        }
      }
      Placement p = placeGang(st_, g, least, o);
      if (p.ok) {
        admit(g, std::move(p.pods));
        continue;
      }
      why.level = p.level;
      why.domain = p.domain;
      why.domain_pods = p.domain_pods;
      why.reason = memo_.fitsEver(st_, g, least) ? PendingReason::NoPlacement
                   : gs.spec.topology.mode == TopologyMode::Required
                       ? PendingReason::TopologyUnsatisfiable
                       : PendingReason::Unschedulable;
      setWhy(g, why);
      head = gs.spec.name;
    }
  }

  // ---- elastic growth ----------------------------------------------------------------

  // Grows running elastic gangs toward their full size when nobody waits for capacity:
  // queues in fair-share order, gangs in admission order.
  void grow() {
    std::vector<std::pair<QueueTurn, GangId>> growers;
    for (QueueId q : st_.queues_by_rank) {
      const QueueState& qs = st_.queues[static_cast<std::size_t>(q)];
      if (!qs.leaf()) continue;
      for (GangId g : qs.running) {
        const GangState& gs = st_.gangs[g];
        bool below = false;
        for (std::size_t i = 0; i < gs.counts.size(); ++i)
          below = below || gs.counts[i] < gs.spec.pod_sets[i].count;
        if (below) growers.emplace_back(queueTurn(st_, q), g);
      }
    }
    PendingOrder by_gang{&st_.gangs};
    std::sort(growers.begin(), growers.end(), [&](const auto& a, const auto& b) {
      if (a.first > b.first) return false;
      if (b.first > a.first) return true;
      return by_gang(a.second, b.second);
    });
    for (const auto& [entry, g] : growers) growOne(g);
  }

  void growOne(GangId g) {
    // A gang shrunk for a reclaim this cycle does not grow back in the same cycle.
    if (std::find(shrunk_.begin(), shrunk_.end(), g) != shrunk_.end()) return;
    GangState& gs = st_.gangs[g];
    std::vector<Pod> added;
    for (std::size_t ps = 0; ps < gs.spec.pod_sets.size(); ++ps) {
      const ResourceVector& req = gs.spec.pod_sets[ps].shape->requests;
      std::int32_t extra = gs.spec.pod_sets[ps].count - gs.counts[ps];
      while (extra > 0 && !withinLimits(st_, gs.queue, req * extra)) --extra;
      PlaceOptions o;
      o.self = g;
      if (gs.spec.topology.mode == TopologyMode::Required && !gs.pods.empty()) {
        o.only_level = st_.levelIndex(gs.spec.topology.level);
        o.only_domain =
            st_.nodes[gs.pods.front().node].domain[static_cast<std::size_t>(o.only_level)];
      }
      for (; extra > 0; extra /= 2) {
        std::vector<std::int32_t> counts(gs.spec.pod_sets.size(), 0);
        counts[ps] = extra;
        Placement p = placeGang(st_, g, counts, o);
        if (!p.ok) continue;
        st_.addPods(g, p.pods);
        added.insert(added.end(), p.pods.begin(), p.pods.end());
        break;
      }
    }
    if (added.empty()) return;
    // Admitted this cycle at its minimum: the admission simply gets the extra pods.
    for (const auto& [admitted, index] : admitted_at_) {
      if (admitted != g) continue;
      Admission& a = out_.admissions[index];
      a.pod_set_counts = gs.counts;
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

  EngineState& st_;
  AnswerMemo& memo_;
  Seconds now_;
  Decisions& out_;
  bool someone_waits_ = false;
  int searches_ = 0;
  // Free capacity held by gangs waiting for terminating pods, given back at the end.
  std::vector<Pledge> pledges_;
  bool counted_on_terminating_ = false;
  bool counted_on_by_last_ = false;  // the gang tryGang() last tried counted on some
  std::vector<GangId> changed_;
  std::vector<std::pair<GangId, std::size_t>> admitted_at_;  // gang, index in admissions
  std::vector<GangId> shrunk_;
  std::vector<std::int32_t> least_, full_;  // the counts of the gang being tried
};

}  // namespace

Decisions runCycle(EngineState& st, AnswerMemo& memo, Seconds now) {
  Decisions out;
  ++st.cycle;
  if (now < st.last_now) now = st.last_now;  // time never runs backwards
  st.last_now = now;
  out.cycle = st.cycle;
  out.now = now;
  // Scan tallies are kept within one cycle only: between cycles nodes and gangs change
  // through paths the capacity log does not cover.
  st.scan_tallies.forget();
  Cycle cycle(st, memo, now, out);
  cycle.run();
  return out;
}

}  // namespace troupe::queueing
