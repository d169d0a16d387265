#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "queueing/engine_state.h"

namespace troupe::queueing {

class CandidatePool;

struct Victim {
  GangId gang = kNoGang;
  bool whole = true;              // evict the gang; false: remove `pods` (shrink)
  std::vector<std::size_t> pods;  // indexes into the victim's pods, when shrinking
  PreemptionReason reason = PreemptionReason::Reclaim;
};

struct PreemptionPlan {
  bool ok = false;
  std::vector<Victim> victims;  // cheapest first
  std::vector<Pod> pods;        // where the preemptor's pods go once the victims are gone
  // When !ok: why no plan exists.
  PendingReason reason = PendingReason::NoPlacement;
  std::string detail;
  // False when no running gang could be a victim at all (nothing was searched).
  bool searched = false;
  // The earliest time a victim skipped for minRuntimeSeconds becomes preemptible.
  Seconds protected_until = kNever;
  // When !ok: how long the failure may be trusted once allocations and fair shares move
  // without any capacity being released (docs/scheduling.md, "Failed searches that stay
  // failed"). Volatile: until any allocation or share moves.
  PreemptFailureKind failure = PreemptFailureKind::Volatile;
  // The other queues whose running gangs were candidates (reclaimSources), by queue id.
  std::vector<QueueId> sources;
};

// The queues other than q whose running gangs a gang of q requesting `request` may take
// capacity from, under the reclaim and take-back rules below (the within-queue rule
// aside): reclaims first, then take-backs, each in queue rank order.
std::vector<QueueId> reclaimSources(EngineState& st, QueueId q, const ResourceVector& request);

// Taking back a guarantee while ending above it (gangs are indivisible): a queue at
// `before` of its guarantee, ending at `after`, may take from a queue at `victim` of its
// own only if it was below its guarantee and ends less far above it than the victim's
// queue is (docs/scheduling.md, rule 4).
inline bool mayTakeBackPastGuarantee(double before, double after, double victim) {
  return before < 1.0 && after < victim;
}

// Looks for the fewest, cheapest victims whose capacity lets gang `g` (at `counts`) be
// placed, under these rules (docs/scheduling.md proves they admit no ping-pong):
//  - within its queue (withinQueue: LowerPriority), running gangs of lower priority;
//  - reclaim (reclaim: true), running gangs of other queues above their fair share, when
//    the preemptor's queue ends at or below its own fair share;
//  - taking back a guarantee (reclaim: true), running gangs of other queues above their
//    guarantee, when the preemptor's queue ends within both its guarantee and its fair
//    share, or, below its guarantee before the gang, within its fair share and less far
//    above its guarantee than the victim's queue is above its own (free capacity
//    fragmented across nodes can leave a queue below its guarantee while no queue is above
//    its fair share);
//  - never a gang with preemptible: false, nor one that ran less than its queue's
//    minRuntimeSeconds, nor one admitted in the current cycle;
//  - shrinking elastic gangs toward their minimum comes before evicting any whole gang;
//  - checked again on the final victim set: the preemptor's queue ends no further above
//    its fair share than any victim's queue ends (waived when the preemptor's queue ends
//    within its guarantee: it takes back what it lent; and for a victim's queue that keeps
//    all of a guarantee: gangs are indivisible), and every victim's queue loses share.
// Tries in a Statement (checkpoint, try, roll back): the state is unchanged on return.
// `pool` (candidate_pool.h), when given, supplies the reclaim candidates of each source
// queue as built once for the cycle; null collects them afresh. Same plan either way.
PreemptionPlan planPreemption(EngineState& st, GangId g, const std::vector<std::int32_t>& counts,
                              Seconds now, CandidatePool* pool = nullptr);

}  // namespace troupe::queueing
