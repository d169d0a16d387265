#pragma once

#include <string_view>

#include "common/result.h"
#include "simulator/cluster_spec.h"

namespace troupe::simulator {

// Name of the one queue a node-list cluster has, also its default queue.
inline constexpr const char* kNodeListQueue = "default";

// Parses a node list CSV (the Alibaba 2023 trace's node file: header required, columns
// found by name: sn, cpu_milli, memory_mib, gpu, model; others ignored) into a cluster:
// the nodes grouped into pools of identical nodes (same GPUs, model, CPU and memory), one
// pool per such kind in order of first appearance, so that --scale applies; and one queue,
// kNodeListQueue, without guarantee or limit, the default queue of every job. Errors name
// the line and the column: "nodes.csv:7:gpu: must be a whole number in [0, 64]".
Result<ClusterSpec> parseNodeList(std::string_view text, std::string_view source_name = "nodes");

}  // namespace troupe::simulator
