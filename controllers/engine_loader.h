#pragma once

#include <vector>

#include "controllers/cluster_snapshot.h"
#include "queueing/engine.h"

namespace troupe::controllers {

struct LoadedEngine {
  queueing::Engine engine;
  std::vector<Problem> problems;  // objects the engine refused, with its reason
};

// An engine holding everything in `cluster` that it accepts. Unlike
// Engine::fromSnapshot, one bad node, queue or gang does not stop the others: it is left
// out and reported, so one broken object never halts scheduling for everyone.
LoadedEngine loadEngine(const ClusterSnapshot& cluster, queueing::Policy policy);

}  // namespace troupe::controllers
