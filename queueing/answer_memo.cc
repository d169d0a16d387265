#include "queueing/answer_memo.h"

#include <algorithm>

#include "queueing/preemption_rules.h"

namespace troupe::queueing {

// ---- the cycle's boundaries ----------------------------------------------------------

void AnswerMemo::startCycle(EngineState& st, Seconds now) {
  if (looks_.size() < st.queues.size()) looks_.resize(st.queues.size());
  answers_.clear();
  if (nodes_seen_ != st.versions.nodes) {
    nodes_seen_ = st.versions.nodes;
    static_ok_.clear();
    static_bad_.clear();
  }
  // A protected victim came of age: earlier searches may now succeed.
  if (now >= protection_expiry_) {
    forgetPreemptionFailures();
    protection_expiry_ = kNever;
  } else if (alloc_seen_ != st.versions.alloc) {
    // Allocations or shares moved: keep only the failures that provably still fail.
    ++preempt_epoch_;
    // Released capacity clears them all below.
    if (release_seen_ == st.versions.release) keepFailuresThatStillFail(st);
  }
  // Answers found from here on hold for the allocations as they are now; a change, even
  // later in this cycle, is checked at the start of the next.
  alloc_seen_ = st.versions.alloc;
  if (release_seen_ != st.versions.release) {
    // Capacity grew since the last cycle: recompute, kind by kind, how many pods fit now
    // (one pass over the nodes each) instead of forgetting every answer, so the queues
    // none of whose kinds can fit yet stay clean.
    release_seen_ = st.versions.release;
    fit_.forEach([&](KindId kind, MemoEntry& entry) {
      const MemoKey& key = st.kinds[static_cast<std::size_t>(kind)];
      const KindCapacity c = kindCapacity(st, key.cls, key.request, key.gpu_milli,
                                          static_cast<TopologyMode>(key.mode), key.level);
      entry.min_failing = c.max_pods + 1;
      entry.level = c.level;
      entry.domain = c.domain;
      entry.domain_pods = c.domain_pods;
    });
    blocked_.clear();
    forgetPreemptionFailures();
  }
}

void AnswerMemo::capacityMayHaveGrown(const EngineState& st) {
  if (release_seen_ == st.versions.release) return;
  release_seen_ = st.versions.release;
  fit_.clear();
  blocked_.clear();
  forgetPreemptionFailures();
}

void AnswerMemo::queueSpecChanged() { forgetPreemptionFailures(); }

void AnswerMemo::forgetPreemptionFailures() {
  preempt_.clear();
  ++preempt_generation_;
}

// ---- placement -----------------------------------------------------------------------

KindId AnswerMemo::memoKind(const EngineState& st, GangId g, const PlaceOptions& o) {
  if (!st.reservations.empty() && (o.backfill_end != kNever || st.holdsReservation(g)))
    return kNoKind;
  return st.gangs[g].kind;
}

Placement AnswerMemo::place(EngineState& st, GangId g, const std::vector<std::int32_t>& counts,
                            const PlaceOptions& o) {
  KindMemo& memo = o.ignore_reservations ? blocked_ : fit_;
  const KindId kind = memoKind(st, g, o);
  if (kind != kNoKind) {
    const MemoEntry* e = memo.find(kind);
    if (e != nullptr && e->min_failing <= counts[0]) {
      Placement p;
      p.level = e->level;
      p.domain = e->domain;
      p.domain_pods = e->domain_pods;
      return p;
    }
  }
  Placement p = placeGang(st, g, counts, o);
  if (!p.ok && kind != kNoKind) {
    auto [e, added] = memo.tryEmplace(kind);
    if (added || counts[0] < e->min_failing) {
      *e = MemoEntry{counts[0], p.level, p.domain, p.domain_pods};
      ++writes_;
    }
  }
  return p;
}

bool AnswerMemo::fitsEver(EngineState& st, GangId g, const std::vector<std::int32_t>& counts) {
  PlaceOptions o;
  o.self = g;
  o.empty_cluster = true;
  o.ignore_reservations = true;
  // Reservations and backfill windows play no part on an empty cluster: every gang of
  // one kind shares the answer, a reservation holder too.
  const KindId kind = st.gangs[g].kind;
  if (kind != kNoKind) {
    const MemoEntry* ok = static_ok_.find(kind);
    if (ok != nullptr && ok->min_failing >= counts[0]) return true;
    const MemoEntry* bad = static_bad_.find(kind);
    if (bad != nullptr && bad->min_failing <= counts[0]) return false;
  }
  const bool fits = placeGang(st, g, counts, o).ok;
  if (kind != kNoKind) {
    auto [e, added] = (fits ? static_ok_ : static_bad_).tryEmplace(kind);
    if (added || (fits ? counts[0] > e->min_failing : counts[0] < e->min_failing)) {
      e->min_failing = counts[0];
      ++writes_;
    }
  }
  return fits;
}

bool AnswerMemo::fitsIgnoringReservations(EngineState& st, GangId g,
                                          const std::vector<std::int32_t>& counts,
                                          const PlaceOptions& o) {
  if (blocked_fits_capacity_ != st.versions.capacity) {
    blocked_fits_.clear();
    blocked_fits_capacity_ = st.versions.capacity;
    ++writes_;
  }
  const KindId kind = memoKind(st, g, o);
  if (kind != kNoKind) {
    const MemoEntry* e = blocked_fits_.find(kind);
    if (e != nullptr && e->min_failing >= counts[0]) return true;
  }
  const bool fits = place(st, g, counts, o).ok;
  if (fits && kind != kNoKind) {
    auto [e, added] = blocked_fits_.tryEmplace(kind);
    if (added || counts[0] > e->min_failing) {
      e->min_failing = counts[0];
      ++writes_;
    }
  }
  return fits;
}

// ---- preemption ----------------------------------------------------------------------

bool AnswerMemo::preemptionKnownToFail(const EngineState& st, GangId g,
                                       const std::vector<std::int32_t>& counts, Why& why) {
  const KindId kind = memoKind(st, g, PlaceOptions{});
  if (kind == kNoKind) return false;
  auto it = preempt_.find(preemptKey(kind, st.gangs[g].queue));
  if (it == preempt_.end() || it->second.min_failing > counts[0]) return false;
  // Rules depend on the priority within the queue; only reuse for equal priority.
  if (it->second.priority != st.gangs[g].spec.priority) return false;
  why.reason = it->second.reason;
  why.detail = it->second.detail;
  return true;
}

void AnswerMemo::rememberPreemptionFailure(EngineState& st, GangId g,
                                           const std::vector<std::int32_t>& counts, const Why& why,
                                           PreemptionPlan& plan) {
  const KindId kind = memoKind(st, g, PlaceOptions{});
  const QueueId q = st.gangs[g].queue;
  if (kind == kNoKind) {
    markPreemptVolatile(q);  // nothing remembered: nothing to check when shares move
    return;
  }
  PreemptFailure f;
  f.min_failing = counts[0];
  f.priority = st.gangs[g].spec.priority;
  f.reason = why.reason;
  f.detail = why.detail;
  f.kind = plan.failure;
  f.sources = std::move(plan.sources);
  ++writes_;
  auto [it, added] = preempt_.try_emplace(preemptKey(kind, q), f);
  if (added) return;
  // Another priority replaces the answer its gangs relied on: they are checked no more.
  if (f.priority != it->second.priority) markPreemptVolatile(q);
  if (f.priority != it->second.priority || counts[0] < it->second.min_failing)
    it->second = std::move(f);
}

void AnswerMemo::markPreemptVolatile(QueueId q) {
  if (q >= 0) look(q).preempt_volatile = true;
}

// Drops the remembered preemption failures that a move of allocations or fair shares
// (with no capacity released: that clears them all) may have turned into successes, and
// marks their queues for another look (PreemptFailureKind says what stays failed).
void AnswerMemo::keepFailuresThatStillFail(EngineState& st) {
  for (auto it = preempt_.begin(); it != preempt_.end();) {
    if (stillFails(st, it->first, it->second)) {
      ++it;
      continue;
    }
    look(queueOfPreemptKey(it->first)).preempt_voided = true;
    it = preempt_.erase(it);
  }
}

bool AnswerMemo::stillFails(EngineState& st, std::uint64_t key, const PreemptFailure& f) {
  const QueueId queue = queueOfPreemptKey(key);
  const QueueState& qs = st.queues[static_cast<std::size_t>(queue)];
  if (!qs.present) return false;
  // The fewest pods the answer covers: more pods ask more and get no more candidates.
  const ResourceVector request =
      st.kinds[static_cast<std::size_t>(kindOfPreemptKey(key))].request * f.min_failing;
  switch (f.kind) {
    case PreemptFailureKind::Volatile: return false;
    case PreemptFailureKind::Exhausted: {
      std::vector<QueueId> now = reclaimSources(st, queue, request);
      std::sort(now.begin(), now.end());
      return std::includes(f.sources.begin(), f.sources.end(), now.begin(), now.end());
    }
    case PreemptFailureKind::NoCandidates:
      return !qs.dirty && overFairShareToReclaim(st, queue, request);
  }
  return false;
}

// ---- queue examinations ---------------------------------------------------------------

void AnswerMemo::beginLook(EngineState& st, QueueId q) {
  // What this examination depends on is taken as of its start: anything that moves while
  // it runs (an admission or eviction in this queue, capacity released by a preemption)
  // marks the queue for another look next cycle.
  st.queues[static_cast<std::size_t>(q)].dirty = false;
  QueueLook& look = this->look(q);
  look.seen_release = st.versions.release;
  look.seen_ancestor_limit_changes = st.ancestorLimitChanges(q);
  look.seen_preempt_generation = preempt_generation_;
  look.seen_preempt_epoch = preempt_epoch_;
  look.preempt_voided = false;
  look.preempt_volatile = false;
  look.waits = false;
  look.next_starving = kNever;
  look.kinds.clear();
  look.release_proof = true;
  look.has_waiting = false;
  look.starving_waiters = false;
  look.seen_reservation_version = st.versions.reservations;
  look.counts_on_terminating = false;
  look.seen_terminating_version = st.terminating.version();
}

// Would examining q now give what its last examination gave? Yes when none of its
// inputs moved: its gangs and allocation, capacity released anywhere, preemption
// answers, a gang of it starting to starve, a reservation it holds.
bool AnswerMemo::unchanged(EngineState& st, QueueId q, Seconds now, bool searches_left) {
  QueueState& qs = st.queues[static_cast<std::size_t>(q)];
  QueueLook& look = this->look(q);
  if (qs.dirty) return false;
  // A limit above it now holds more (a sibling's admission): a gang that fitted its limits
  // may not any more.
  if (look.seen_ancestor_limit_changes != st.ancestorLimitChanges(q)) return false;
  if (now >= look.next_starving) {
    // A gang of it started to starve since its last examination. That changes only its
    // claim to a reservation (docs/scheduling.md, "Backfill and starvation"), which it can
    // make only with backfill on and a reservation free to take. Otherwise the
    // examination would give what the last one gave, and only when the next gang starts
    // to starve is learnt, from the pending list's own keys: with 1,000 gangs a queue,
    // some gang of most queues starts to starve every second, and each sent its whole
    // queue back to the walk.
    if (st.policy.backfill && static_cast<int>(st.reservations.size()) < st.policy.max_reservations)
      return false;
    if (!unchangedApartFromStarving(st, q, searches_left)) return false;
    look.next_starving = std::min(
        kNever, qs.pending.nextStarving(
                    now, qs.spec.max_wait_seconds.value_or(st.policy.default_max_wait_seconds)));
    // As its examination would note for a waiting gang that starves: the next
    // reservation to end sends the queue back (a gang that does not wait for capacity
    // only costs that queue one more look).
    look.starving_waiters = true;
    return true;
  }
  return unchangedApartFromStarving(st, q, searches_left);
}

// The rest of unchanged(): every input of q's last examination but the
// clock.
bool AnswerMemo::unchangedApartFromStarving(EngineState& st, QueueId q, bool searches_left) {
  QueueLook& look = this->look(q);
  // A reservation ended since its last examination: a starving gang of it may get one
  // now, but only while a reservation is free to take (Policy::max_reservations). With
  // all of them held, reserve() would refuse every gang of it, so the queue is skipped
  // and keeps the mark: it is examined in the first cycle with one free. (One ending
  // reservation sent every queue with a starving waiter back, 164 of 1,000 at the
  // benchmark's base, though the first of them took the free reservation again.)
  if (look.starving_waiters && look.seen_reservation_version != st.versions.reservations &&
      static_cast<int>(st.reservations.size()) < st.policy.max_reservations)
    return false;
  if (std::any_of(st.reservations.begin(), st.reservations.end(),
                  [&](const Reservation& r) { return st.gangs[r.gang].queue == q; }))
    return false;
  // Terminating capacity: a gang of it counted on some, which is counted afresh each
  // cycle; or some appeared that a waiting gang of it may count on.
  if (look.counts_on_terminating ||
      (look.waits && look.seen_terminating_version != st.terminating.version()))
    return false;
  // Preemption answers moved: only matters if some gang of it could preempt at all, and
  // only while this cycle's preemption searches are not all spent.
  const bool preempt_moved = look.seen_preempt_generation != preempt_generation_ ||
                             look.preempt_voided ||
                             (look.preempt_volatile && look.seen_preempt_epoch != preempt_epoch_);
  if (preempt_moved && searches_left && mayPreempt(st, q)) return false;
  // Capacity was released: only matters if one of its waiting kinds fits now.
  if (look.seen_release != st.versions.release) {
    if (!look.release_proof) return false;
    // The kinds' memo counts free capacity only: released capacity together with what
    // terminating pods hold may fit a waiting gang, which would then wait for them.
    if (look.waits && !st.terminating.empty()) return false;
    for (const auto& [kind, count] : look.kinds) {
      const MemoEntry* e = fit_.find(kind);
      if (e == nullptr || e->min_failing > count) return false;
    }
  }
  // The preemption markers stay as they are: a queue skipped because it could not
  // preempt now, or because this cycle's searches are spent, must still be looked at
  // once it can. Its failed answers may be gone from the memo, so nothing else would
  // send it back (another queue rising above its fair share does not).
  look.seen_release = st.versions.release;
  return true;
}

// Could any gang of q preempt, whatever the free capacity, under the rules of
// preemption_rules.h?
bool AnswerMemo::mayPreempt(EngineState& st, QueueId q) {
  QueueState& qs = st.queues[static_cast<std::size_t>(q)];
  const QueueLook& look = this->look(q);
  if (qs.pending.empty()) return false;
  // The best pending gang's priority bounds what any of them may preempt in the queue
  // (read only where the queue's rules allow preemption within it at all).
  if (qs.spec.within_queue != WithinQueuePreemption::Never) {
    const std::int32_t top = st.gangs[qs.pending.front()].spec.priority;
    for (GangId r : qs.running)
      if (mayPreemptWithinQueue(qs, top, st.gangs[r].spec.priority)) return true;
  }
  // The smallest waiting request (slot by slot) bounds every waiting gang's sources: a
  // smaller request only adds some.
  return look.has_waiting && hasReclaimSource(st, q, look.min_waiting_request);
}

// Records what a release of capacity could change for q's waiting gang g.
void AnswerMemo::noteWaiting(EngineState& st, QueueId q, GangId g, bool starving) {
  const GangState& gs = st.gangs[g];
  QueueLook& look = this->look(q);
  // A gang a limit holds back may also preempt (queue_limits.h): it counts as waiting for
  // the "could it preempt at all" test.
  if (waitsForCapacity(gs.why.reason) || gs.why.reason == PendingReason::QueueAtLimit) {
    ResourceVector least = gs.min_request;
    for (const GangWay& w : gs.ways) least = ResourceVector::min(least, w.min_request);
    look.min_waiting_request =
        look.has_waiting ? ResourceVector::min(look.min_waiting_request, least) : least;
    look.has_waiting = true;
  }
  switch (gs.why.reason) {
    case PendingReason::Inadmissible:  // until a node or queue changes (all dirty then)
    case PendingReason::BlockedByQueueHead: return;  // a release does not change these
    case PendingReason::Preempted:
      st.markDirty(q);  // evicted this cycle and not tried yet: try it next cycle
      return;
    case PendingReason::NoPlacement:
    case PendingReason::TopologyUnsatisfiable:
    case PendingReason::OverFairShare:
    case PendingReason::WaitingForReclaim:
    case PendingReason::BlockedByStarvingJob: {
      const KindId kind = gs.kind;
      // A starving gang may get a reservation once one ends: examine it again then.
      if (starving) look.starving_waiters = true;
      // A gang with alternatives waits for any of its ways: their kinds were noted as they
      // were tried (GangAdmission::tryWays).
      if (!gs.ways.empty()) return;
      const bool exempt = gs.spec.runtime_estimate.has_value() || st.holdsReservation(g);
      if (kind == kNoKind || exempt) {
        look.release_proof = false;
        return;
      }
      const std::int64_t count = gs.spec.pod_sets[0].min_count;
      for (auto& [k, c] : look.kinds) {
        if (k == kind) {
          c = std::min(c, count);
          return;
        }
      }
      look.kinds.emplace_back(kind, count);
      return;
    }
    default: look.release_proof = false; return;
  }
}

// ---- answers within a walk -----------------------------------------------------------
//
// A queue's waiting gangs repeat a few asks: at 100 queues of 1,000 gangs, each queue
// holds a few dozen combinations of kind, pods and priority. Two gangs of one walk that
// ask the same, with no runtime estimate, no reservation, not starving and not evicted
// this cycle, get the same answer from trying them while nothing the trial reads has
// moved: everything it reads for the second is a memo the first filled or read
// (placement, fits-on-an-empty-cluster, preemption, fits-ignoring-reservations), the
// queue's limits and allocation, the reservations and the preemption budget, and the
// first one's request, which is the second one's. So the second gets the first one's
// answer without its state being read beyond its explanation, which is where a walk's time
// went: each gang's spec and pod sets are a cache miss of their own. What the trial and
// the walk record for the first (noteWaiting, the queue's waits) the second would record
// again unchanged. Every write to a memo, and every move of capacity, allocation,
// reservations or shares, forgets the answers; so does each new stretch of a walk.

void AnswerMemo::shareAnswer(const EngineState& st, const PendingList::Ask& ask,
                             const WalkAnswer& answer) {
  const AnswerStamp now = answerStamp(st);
  if (answers_stamp_ != now) {
    answers_.clear();
    answers_stamp_ = now;
  }
  answers_.put(keyOf(ask), answer);
}

}  // namespace troupe::queueing
