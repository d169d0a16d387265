#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "queueing/ids.h"
#include "queueing/placement_memo.h"
#include "queueing/resource_vector.h"
#include "queueing/snapshot.h"

namespace troupe::queueing {

// The last full examination of one leaf queue's pending gangs, and what it depended on.
// A queue whose inputs did not move is not examined again (its gangs would fail again the
// same way), which keeps a cycle after a small change cheap (AnswerMemo::unchanged).
// Everything here is as of the examination's start, or noted while it ran.
struct QueueLook {
  // Versions it saw (StateVersions::release, AnswerMemo's preemption generation).
  std::uint64_t seen_release = 0;
  std::uint64_t seen_preempt_generation = 0;
  // Preemption answers it relied on: preempt_voided when one of its remembered failures
  // was dropped since; preempt_volatile when some waiting gang's answer was not remembered
  // at all (no search budget left, no memo key), so any move of allocations or shares
  // (the preemption epoch) may change it.
  bool preempt_voided = false;
  bool preempt_volatile = false;
  std::uint64_t seen_preempt_epoch = 0;
  // EngineState::ancestorLimitChanges() at its start: an ancestor with a limit whose
  // allocation moved (a sibling's admission, no release) may hold back a gang that fitted
  // its limits then.
  std::uint64_t seen_ancestor_limit_changes = 0;
  Seconds next_starving = kNever;  // when one of its waiting gangs starts starving
  bool waits = false;              // some gang of it waits for capacity
  // What a release of capacity could change for it: the pod kinds its waiting gangs
  // failed to place, each with the smallest count that failed. release_proof is false
  // when some waiting gang's outcome could change in a way these kinds do not capture
  // (a queue's limit binding, a reservation, several pod sets, an estimate).
  std::vector<std::pair<KindId, std::int64_t>> kinds;
  bool release_proof = false;
  // The smallest request (slot by slot) among its gangs that waited for capacity, for the
  // "could it reclaim at all" test; has_waiting false when none did.
  ResourceVector min_waiting_request;
  bool has_waiting = false;
  // Some waiting gang of it starves without a reservation: a reservation that ends may
  // give it one, so it is examined again when StateVersions::reservations moves.
  bool starving_waiters = false;
  std::uint64_t seen_reservation_version = 0;
  // Some gang of it waited for terminating capacity: what it counted on is counted again
  // every cycle, so the queue is examined every cycle until none does. And any waiting gang
  // of it may count on terminating capacity that appeared since its last examination
  // (TerminatingCapacity::version).
  bool counts_on_terminating = false;
  std::uint64_t seen_terminating_version = 0;
};

}  // namespace troupe::queueing
