#pragma once

#include "queueing/cycle_run.h"

namespace troupe::queueing {

// Grows running elastic gangs toward their full size (docs/scheduling.md, "Elastic
// gangs"): queues in fair-share order (queue_turn.h), gangs in admission order, each
// within its queue's limits and, when its topology is required, inside the domain it
// runs in. A gang shrunk in this cycle does not grow back in it. The policy calls it only
// when nobody waits for capacity.
void growElasticGangs(CycleRun& run);

}  // namespace troupe::queueing
