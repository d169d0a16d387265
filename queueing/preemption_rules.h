#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "queueing/engine_state.h"
#include "queueing/queue_limits.h"

namespace troupe::queueing {

// The preemption rules of docs/scheduling.md ("Preemption and reclaim" and "The rule that
// makes it loop-free"), each stated once. The search (preemption.h) applies them; the
// memo (engine_memo.h) asks the same functions whether a queue could preempt at all and
// whether a failed search still fails, so a rule changed here changes all three.

// Within a queue (withinQueue: LowerPriority): a running gang of lower priority than the
// preemptor's.
bool mayPreemptWithinQueue(const QueueState& q, std::int32_t preemptor_priority,
                           std::int32_t victim_priority);

// Whether running gang `v` may be a victim at all at `now`: preemptible, and ran at least
// its queue's minRuntimeSeconds (else `protected_until` is lowered to when it will have).
bool runLongEnough(const GangState& v, const QueueState& vq, Seconds now, Seconds& protected_until);

// Whether reclaim (or taking back a guarantee) may take running gang `v` of queue `vq`: not
// when it started on its reservation holding more GPUs than `vq` is guaranteed. Such a gang
// can only ever run on borrowed GPUs, which under a backlog it gets only by starving and
// draining a reservation; reclaimed once started, it would starve and drain again at every
// start and might never finish. Priority preemption within its queue may still take it.
bool mayBeReclaimed(const GangState& v, const QueueState& vq);

// Whether running gang `v` has a pod that is not terminating: one whose pods are all
// terminating offers nothing (and is not counted as protected either).
bool offersCapacity(const GangState& v);

// Taking back a guarantee while ending above it (gangs are indivisible): a queue at
// `before` of its guarantee, ending at `after`, may take from a queue at `victim` of its
// own only if it was below its guarantee and ends less far above it than the victim's
// queue is (rule 4).
inline bool mayTakeBackPastGuarantee(double before, double after, double victim) {
  return before < 1.0 && after < victim;
}

// The queues other than q whose running gangs a gang of q requesting `request` may take
// capacity from (reclaim: true):
//  - reclaim: queues above their fair share, further above it than q ends, when q ends
//    within its own fair share;
//  - taking back a guarantee: queues above their guarantee, when q ends within its fair
//    share and either within its guarantee, or, below it before the gang, less far above
//    it than the source queue is above its own.
// Reclaims first, then take-backs, each in queue rank order.
std::vector<QueueId> reclaimSources(EngineState& st, QueueId q, const ResourceVector& request);
// Whether reclaimSources() would name any queue.
bool hasReclaimSource(EngineState& st, QueueId q, const ResourceVector& request);

// Why a gang that found no candidate waits with OverFairShare: its queue would end above
// its fair share while some other queue is above its own, so it may not reclaim.
bool overFairShareToReclaim(EngineState& st, QueueId q, const ResourceVector& request);

// What a final victim set that broke a rule took too much of, for a search that runs
// again without part of it (preemption.cc): from `queue` (a victim's queue, or the
// preemptor's own), none of its gangs (whole_queue) or fewer of them. queue < 0: leaving
// victims out cannot mend it (the preemptor's queue would end above its fair share).
struct RuleOffence {
  QueueId queue = -1;
  bool whole_queue = false;
};

// The rules checked on the final victim set of a gang of queue q requesting `request`
// (rules 1 to 4, and the within-queue rule): "" when they hold, else the rule broken, as
// the waiting gang's detail, and what broke it in `offence` when given.
std::string brokenPreemptionRule(const EngineState& st, QueueId q, const ResourceVector& request,
                                 const FreedByQueue& freed, RuleOffence* offence = nullptr);

}  // namespace troupe::queueing
