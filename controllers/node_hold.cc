#include "controllers/node_hold.h"

namespace troupe::controllers {

std::uint64_t gpuMask(const std::vector<int>& gpus) {
  std::uint64_t mask = 0;
  for (int i : gpus)
    if (i >= 0 && i < 64) mask |= std::uint64_t{1} << i;
  return mask;
}

void holdOn(queueing::NodeSpec& node, const NodeHold& hold) {
  node.allocatable =
      queueing::ResourceVector::max(node.allocatable - hold.requests, queueing::ResourceVector());
  const std::uint64_t held = gpuMask(node.held_gpus) | hold.gpus;
  node.held_gpus.clear();
  for (int i = 0; i < 64; ++i)
    if ((held >> i) & 1) node.held_gpus.push_back(i);
}

}  // namespace troupe::controllers
