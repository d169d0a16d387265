#pragma once

#include <nlohmann/json.hpp>

#include <vector>

#include "common/result.h"

// The simulated GPU cluster `troupe serve` creates when no cluster file is named: `nodes`
// nodes of `gpus_per_node` GPUs spread over `racks` racks, two racks to a block, each
// node's GPUs in two NVLink islands (one per NUMA node) when their number is even. The
// default, 4 racks x 4 nodes x 8 GPUs, is examples/cluster.yaml node for node (a test
// keeps them equal), so the file documents what the binary makes. The GPUs are of two
// types, as NVIDIA's GPU feature discovery labels them (nvidia.com/gpu.product): H100s in
// the first half of the racks (rounded up), A100s in the rest (examples/03-gpu-types.yaml).
namespace troupe::kubelet {

inline constexpr const char* kH100Product = "NVIDIA-H100-80GB-HBM3";
inline constexpr const char* kA100Product = "NVIDIA-A100-SXM4-80GB";

struct DemoClusterShape {
  int nodes = 16;
  int gpus_per_node = 8;
  int racks = 4;
};

// The Node objects, rack by rack. An Invalid error names the flag and its rule: nodes
// 0 to 10000, GPUs per node 0 to 1024, racks 1 to nodes (any number when nodes is 0).
Result<std::vector<nlohmann::json>> demoClusterNodes(const DemoClusterShape& shape);

}  // namespace troupe::kubelet
