#pragma once

#include <nlohmann/json.hpp>

#include <vector>

#include "common/result.h"

// GPU nodes carved into MIG slices, which `troupe serve --mig-nodes N` adds beside the
// built-in cluster: N nodes named mig-n1 .. mig-nN, rack mig-rack, each with 8 H100 GPUs
// split as NVIDIA's device plugin advertises them under the mixed strategy: per GPU one
// nvidia.com/mig-3g.40gb and four nvidia.com/mig-1g.10gb, so 8 and 32 per node, and no whole
// nvidia.com/gpu. Slices are extended resources: queues give quota in them and pods ask for
// them like any other resource.
namespace troupe::kubelet {

// An Invalid error names --mig-nodes and its rule: 0 to 1000.
Result<std::vector<nlohmann::json>> migNodes(int count);

}  // namespace troupe::kubelet
