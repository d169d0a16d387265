#pragma once

#include <cstdint>
#include <vector>

#include "queueing/resource_vector.h"
#include "queueing/snapshot.h"

// What bound pods that no gang of the engine counts hold on one node (pods of other
// schedulers, of no PodGroup or a finished one, of gangs left out or refused), and the
// node as the engine must see it for them: nothing bound is ever left uncounted.
namespace troupe::controllers {

struct NodeHold {
  queueing::ResourceVector requests;
  std::uint64_t gpus = 0;  // bit i: GPU index i
};

// The GPU indices as a mask (indices outside [0, 64) are left out).
std::uint64_t gpuMask(const std::vector<int>& gpus);

// Takes `hold` out of the node: less allocatable (never below zero), and its GPU indices
// held (NodeSpec::held_gpus), so that no gang is given them.
void holdOn(queueing::NodeSpec& node, const NodeHold& hold);

}  // namespace troupe::controllers
