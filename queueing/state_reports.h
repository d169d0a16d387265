#pragma once

#include "queueing/decisions.h"
#include "queueing/engine_state.h"

namespace troupe::queueing {

// What the engine reports of its state, in the public types of decisions.h: for the
// cycle's decisions and for the Engine's queries.

// A running pod's node and GPU indices.
PodPlacement toPlacement(const EngineState& st, const Pod& pod);
// Why pending gang g waits, with its queue's numbers as they are now.
PendingExplanation explain(const EngineState& st, GangId g);
// Queue q's fair share, allocation, demand and dominant share.
QueueStatus statusOf(const EngineState& st, QueueId q);

}  // namespace troupe::queueing
