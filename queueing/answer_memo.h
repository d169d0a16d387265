#pragma once

#include <cstdint>
#include <vector>

#include "queueing/candidate_pool.h"
#include "queueing/engine_state.h"
#include "queueing/gang_placer.h"
#include "queueing/pending_list.h"
#include "queueing/placement_memo.h"
#include "queueing/preemption.h"
#include "queueing/preemption_memo.h"
#include "queueing/queue_look.h"
#include "queueing/reservation_plans.h"
#include "queueing/walk_answers.h"

namespace troupe::queueing {

// Everything the engine reuses from an earlier answer instead of finding it again, and
// when each answer still holds. The scheduling policies ask it; none of them keeps an
// answer of its own. What it holds, and the invariant each part keeps:
//
//  - Placement failures by kind (fit_, blocked_, static_bad_) and successes (static_ok_,
//    blocked_fits_): "n pods of this kind do not fit" stays true for every count >= n
//    while free capacity only shrinks, that is while StateVersions::release stays put; a
//    release recomputes how many pods of each remembered kind fit now (startCycle) or
//    forgets them (capacityMayHaveGrown). Answers on an empty cluster hold while the nodes
//    do (StateVersions::nodes); successes ignoring reservations while no node's free
//    capacity moves (StateVersions::capacity).
//  - Failed preemption searches by (kind, queue), for one priority: kept while no capacity
//    is released and no protected victim comes of age; when allocations or fair shares
//    move, only those that provably still fail (PreemptFailureKind) are kept.
//  - Reclaim candidates per source queue (candidate_pool.h), rebuilt when their queue's
//    running gangs move.
//  - Each leaf queue's last examination (QueueLook): a queue none of whose inputs moved
//    since is not examined again (unchanged()).
//  - Answers given within one stretch of one queue's walk, by ask (WalkAnswers): the
//    answer trying the gang would give, while no memo was written and nothing the answer
//    read moved.
//  - Each reservation's plan (ReservationPlans): kept while planning it again could not
//    move it.
//
// Each of these can be switched off (Policy::skip_unchanged_queues,
// share_preemption_candidates, share_walk_answers, keep_reservation_plans;
// share_placement_scans for the scan tallies the placer keeps within a cycle) with
// identical decisions, which the property tests compare.
class AnswerMemo {
 public:
  // ---- the cycle's boundaries ----

  // The start of a cycle at `now`: drops the answers that what moved since the last cycle
  // may have changed, and takes the state's versions as those later answers hold for.
  void startCycle(EngineState& st, Seconds now);
  // Capacity grew for someone during the cycle (victims released, a reservation dropped):
  // earlier "does not fit" answers may no longer hold.
  void capacityMayHaveGrown(const EngineState& st);
  // A queue's spec changed: its preemption rules (reclaim, withinQueue, minRuntimeSeconds)
  // may have moved.
  void queueSpecChanged();

  // ---- placement ----

  // placeGang() on free capacity (ignoring reservations with o.ignore_reservations),
  // answered from the failures remembered for g's kind when they cover `counts`.
  Placement place(EngineState& st, GangId g, const std::vector<std::int32_t>& counts,
                  const PlaceOptions& o);
  // Could the gang ever fit, on an empty cluster?
  bool fitsEver(EngineState& st, GangId g, const std::vector<std::int32_t>& counts);
  // Explanations only: would g fit if no capacity were reserved?
  bool fitsIgnoringReservations(EngineState& st, GangId g, const std::vector<std::int32_t>& counts,
                                const PlaceOptions& o);

  // ---- preemption ----

  // Whether a search for g at `counts` is known to fail; sets why's reason and detail.
  bool preemptionKnownToFail(const EngineState& st, GangId g,
                             const std::vector<std::int32_t>& counts, Why& why);
  // Remembers a failed search for g at `counts`, which ended with `why`.
  void rememberPreemptionFailure(EngineState& st, GangId g, const std::vector<std::int32_t>& counts,
                                 const Why& why, PreemptionPlan& plan);
  // Some waiting gang of q was answered without a remembered search (budget spent, no
  // memo key): any move of allocations or shares may change its answer.
  void markPreemptVolatile(QueueId q);
  // The reclaim candidates shared between searches, or null when the policy collects
  // them afresh for each (Policy::share_preemption_candidates).
  CandidatePool* candidatePool(const Policy& policy) {
    return policy.share_preemption_candidates ? &candidates_ : nullptr;
  }
  // A victim skipped for minRuntimeSeconds becomes preemptible at `t`.
  void noteProtectedUntil(Seconds t) { protection_expiry_ = std::min(protection_expiry_, t); }
  Seconds protectionExpiry() const { return protection_expiry_; }

  // ---- reservations ----

  // What each reservation was last planned on (restoreReservations, reservations.h).
  ReservationPlans& reservationPlans() { return reservation_plans_; }

  // ---- queue examinations ----

  // The last examination of queue q (valid for every queue from startCycle on).
  QueueLook& look(QueueId q) { return looks_[static_cast<std::size_t>(q)]; }
  const QueueLook& look(QueueId q) const { return looks_[static_cast<std::size_t>(q)]; }
  // Would examining q now give what its last examination gave? `searches_left`: this
  // cycle's preemption searches are not all spent.
  bool unchanged(EngineState& st, QueueId q, Seconds now, bool searches_left);
  // An examination of q starts: what it depends on is taken as of now.
  void beginLook(EngineState& st, QueueId q);
  // Records what a release of capacity could change for q's waiting gang g, which was
  // tried (starving: it waited past its queue's maximum wait).
  void noteWaiting(EngineState& st, QueueId q, GangId g, bool starving);
  // A gang of q counted on terminating capacity this cycle.
  void noteCountsOnTerminating(QueueId q) {
    if (q >= 0) look(q).counts_on_terminating = true;
  }

  // ---- answers within a walk ----

  // A memo was written, or what later gangs may count on moved: answers shared within the
  // walk no longer hold.
  void noteWrite() { ++writes_; }
  // Whether a gang of this ask may share answers, as far as its pending entry tells: one
  // pod set, no runtime estimate, not starving (maxWait: its queue's maximum wait).
  bool askMayShare(const Policy& policy, const PendingList::Ask& ask, Seconds now,
                   Seconds max_wait) const {
    return policy.share_walk_answers && ask.kind != kNoKind && !ask.estimate &&
           now - ask.submit_time < max_wait;
  }
  // Whether an answer to this ask is kept (for prefetching only).
  bool answered(const PendingList::Ask& ask) const { return answers_.find(keyOf(ask)) != nullptr; }
  // The answer an earlier gang of this stretch of the walk got for the same ask, or null.
  // Inline, as answerStamp(): most visits of a walk end here.
  const WalkAnswer* sharedAnswer(const EngineState& st, const PendingList::Ask& ask) {
    if (answers_.empty()) return nullptr;
    if (answers_stamp_ != answerStamp(st)) {
      answers_.clear();
      return nullptr;
    }
    return answers_.find(keyOf(ask));
  }
  // Keeps the answer trying a gang of this ask just gave, for the gangs after it.
  void shareAnswer(const EngineState& st, const PendingList::Ask& ask, const WalkAnswer& answer);
  // A new stretch of a walk: no answer is shared across stretches.
  void forgetAnswers() { answers_.clear(); }

 private:
  // What the answers within a walk were given under; any difference forgets them.
  struct AnswerStamp {
    std::uint64_t writes, release, alloc, capacity, reservation, preempt_generation, preempt_epoch,
        nodes;
    std::size_t reservations;
    friend bool operator==(const AnswerStamp&, const AnswerStamp&) = default;
  };
  AnswerStamp answerStamp(const EngineState& st) const {
    return AnswerStamp{writes_,
                       st.versions.release,
                       st.versions.alloc,
                       st.versions.capacity,
                       st.versions.reservations,
                       preempt_generation_,
                       preempt_epoch_,
                       st.versions.nodes,
                       st.reservations.size()};
  }
  static AskKey keyOf(const PendingList::Ask& ask) {
    return AskKey{ask.kind, ask.min_count, ask.count, ask.priority};
  }
  // The memo kind of g under these options, or kNoKind when its outcome is not shareable
  // (reservations make it depend on the gang).
  static KindId memoKind(const EngineState& st, GangId g, const PlaceOptions& o);
  void forgetPreemptionFailures();
  void keepFailuresThatStillFail(EngineState& st);
  bool stillFails(EngineState& st, std::uint64_t key, const PreemptFailure& f);
  bool unchangedApartFromStarving(EngineState& st, QueueId q, bool searches_left);
  bool mayPreempt(EngineState& st, QueueId q);

  KindMemo fit_;      // placement on free capacity
  KindMemo blocked_;  // placement ignoring reservations
  // Placement ignoring reservations that succeeded: count in min_failing (as "fits up
  // to"), valid while StateVersions::capacity stays at blocked_fits_capacity_.
  KindMemo blocked_fits_;
  std::uint64_t blocked_fits_capacity_ = 0;
  KindMemo static_ok_;  // placement on an empty cluster, valid for nodes_seen_
  KindMemo static_bad_;
  // The StateVersions the placement failures and the preemption memo hold for.
  std::uint64_t release_seen_ = 0;
  std::uint64_t nodes_seen_ = 0;
  std::uint64_t alloc_seen_ = 0;

  PreemptMemo preempt_;  // failed preemption searches, per (kind, queue)
  // Bumped whenever preempt_ is cleared: a queue that relied on it looks again.
  std::uint64_t preempt_generation_ = 0;
  // Bumped at the start of a cycle when allocations or fair shares moved since the last.
  std::uint64_t preempt_epoch_ = 0;
  // When a victim protected by minRuntimeSeconds becomes preemptible.
  Seconds protection_expiry_ = kNever;

  CandidatePool candidates_;
  ReservationPlans reservation_plans_;
  std::vector<QueueLook> looks_;  // by queue id

  // Bumped by every memo write (and every claim on terminating capacity).
  std::uint64_t writes_ = 0;
  WalkAnswers answers_;
  AnswerStamp answers_stamp_{};
};

}  // namespace troupe::queueing
