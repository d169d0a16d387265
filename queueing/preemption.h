#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "queueing/engine_state.h"
#include "queueing/victim.h"

namespace troupe::queueing {

class CandidatePool;

// How long a failed preemption search stays failed while allocations and fair shares move
// but no capacity is released anywhere (no pod released, node changed, reservation
// dropped, protection ended):
//  - Volatile: only until any allocation or fair share moves.
//  - Exhausted: every candidate was released and the gang still did not fit. The free
//    capacity plus the capacity of the candidates can only shrink while no capacity is
//    released and no gang that held capacity then becomes a candidate; the latter needs a
//    new source queue, so the failure holds while reclaimSources() for the same request
//    stays within the recorded sources.
//  - NoCandidates: no candidate at all, because the gang's queue would end above its fair
//    share (reason OverFairShare). Holds while that queue would still end above its fair
//    share, some other queue is still above its own, and the queue's own running gangs
//    did not change (the queue is not dirty).
enum class PreemptFailureKind : std::uint8_t { Volatile, Exhausted, NoCandidates };

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

// Looks for the fewest, cheapest victims whose capacity lets gang `g` (at `counts`) be
// placed. Who may be a victim, and what the final set must satisfy, are the rules of
// preemption_rules.h (docs/scheduling.md proves they admit no ping-pong); the search
// releases the candidates in cost order (cheaper(), candidate_pool.h: shrinks before
// evictions) until the gang fits, then drops every victim it can, most expensive first,
// and checks the rules on what is left. Capacity terminating pods hold is counted on,
// never chosen.
// Tries in a Statement (checkpoint, try, roll back): the state is unchanged on return.
// `pool` (candidate_pool.h), when given, supplies the reclaim candidates of each source
// queue as built once for the cycle; null collects them afresh. Same plan either way.
// The fit test checks every limit on the gang's path with the released victims' usage
// removed (quotaBreach, queue_limits.h), as Kueue simulates their removal.
// A set that breaks a final-set rule is searched again without part of it (preemption.cc)
// as long as `*retries` (the cycle's budget, decremented by each further run) allows; null:
// up to the search's own bound.
PreemptionPlan planPreemption(EngineState& st, GangId g, const std::vector<std::int32_t>& counts,
                              Seconds now, CandidatePool* pool = nullptr,
                              std::size_t* retries = nullptr);

}  // namespace troupe::queueing
