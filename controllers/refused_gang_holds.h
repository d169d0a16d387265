#pragma once

#include <vector>

#include "controllers/cluster_snapshot.h"
#include "queueing/engine.h"

namespace troupe::controllers {

// Makes `engine` hold what the bound pods of the running gangs it refused hold (their
// GPUs overlap another gang's, the GPU indices they list do not match their requests, a
// spec the engine rejects, ...): each node they are on is given again with those pods'
// requests and GPUs taken out (controllers/node_hold.h). A refused gang is out of
// scheduling, but its pods hold their GPUs all the same; left uncounted, their capacity
// was given to other gangs, on GPUs still in use.
//
// `refused` are the problems the engine gave for `cluster`'s gangs; nodes it refuses in
// turn are returned as problems. The next sync gives the engine the snapshot's own specs
// again, and this again for the gangs it still refuses.
std::vector<Problem> holdRefusedGangs(queueing::Engine& engine, const ClusterSnapshot& cluster,
                                      const std::vector<Problem>& refused);

}  // namespace troupe::controllers
