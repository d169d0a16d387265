#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"

// The benchmarks' cluster: NODES Node objects named node-<i>, 8 GPUs each (two NVLink
// islands of 4), 16 nodes a rack (label troupe.dev/rack), Ready. The same nodes serve the
// benchmarks that drive `troupe serve` (as its --cluster file) and those that build the
// scheduler's snapshot from objects in memory.
namespace troupe::bench {

struct GeneratedClusterShape {
  int nodes = 100;
  int gpus_per_node = 8;
  int nodes_per_rack = 16;
};

std::vector<nlohmann::json> generatedNodes(const GeneratedClusterShape& shape);

// The nodes as a cluster file for `troupe serve --cluster` (YAML documents).
Result<void> writeClusterFile(const std::string& path, const GeneratedClusterShape& shape);

// The name of node `index` in such a cluster.
std::string generatedNodeName(int index);

}  // namespace troupe::bench
