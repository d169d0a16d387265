#pragma once

#include <cstdint>
#include <vector>

#include "queueing/answer_memo.h"
#include "queueing/engine_state.h"

namespace troupe::queueing {

// Reservations for starving gangs (docs/scheduling.md, "Backfill and starvation"): a gang
// that waited past its queue's maxWaitSeconds is planned on the cluster as if every
// running pod had ended, on the freest nodes, and holds them: their capacity, as it frees,
// is its alone, but for gangs expected to end before the reservation's start. At most
// Policy::max_reservations are held at once, at most Policy::max_reservations_per_queue by
// one leaf queue's gangs; they carry over between cycles (EngineState::reservations) until
// their gang is admitted or leaves.

// The start of a cycle: reservations whose gang left, runs, or lost its queue end; the
// others, when capacity was released since they were last planned, are planned again,
// earliest granted first, on the nodes freest now (a reservation with no room left ends),
// but for those whose plan provably stands (the memo's ReservationPlans, while
// Policy::keep_reservation_plans); each marks its nodes, with when those are expected free.
void restoreReservations(EngineState& st, AnswerMemo& memo, Seconds now);

// Reserves nodes for starving gang g at `counts` pods per pod set, if a reservation is
// free to take (in all and for g's queue) and g could fit the cluster outside the other
// reservations as if every running pod had ended; returns whether it did.
bool reserve(EngineState& st, GangId g, const std::vector<std::int32_t>& counts, Seconds now);

// g's reservation ends (it was admitted): its nodes are open to others again.
void dropReservation(EngineState& st, AnswerMemo& memo, GangId g);

}  // namespace troupe::queueing
