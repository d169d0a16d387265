#pragma once

#include <string>

#include "common/result.h"

// A cluster file for `troupe serve --cluster`: NODES Node objects named node-<i>, 8 GPUs
// each (two NVLink islands of 4), 16 nodes a rack (label troupe.dev/rack), Ready.
namespace troupe::bench {

struct GeneratedClusterShape {
  int nodes = 100;
  int gpus_per_node = 8;
  int nodes_per_rack = 16;
};

Result<void> writeClusterFile(const std::string& path, const GeneratedClusterShape& shape);

// The name of node `index` in such a file.
std::string generatedNodeName(int index);

}  // namespace troupe::bench
