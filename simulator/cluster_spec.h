#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace troupe::simulator {

// One simulated node. Its GPUs are numbered 0..gpus-1; consecutive runs of
// `nvlink_domain_size` GPUs share an NVLink island and consecutive runs of
// gpus / numa_nodes GPUs share a NUMA node.
struct NodeSpec {
  std::string name;
  int gpus = 0;
  std::string rack;
  std::string block;
  int nvlink_domain_size = 0;  // 0: no NVLink islands (all GPUs equal)
  int numa_nodes = 1;
  // The GPU model of all its GPUs (the value of the label nvidia.com/gpu.product); empty:
  // unnamed.
  std::string gpu_type;
  // CPU (thousandths of a core) and memory it offers; both 0: CPU and memory are not
  // simulated on it (pods' requests of them are not counted).
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
};

// Identical nodes named <name>-00000, <name>-00001, ... in racks of `nodes_per_rack`
// (<name>-rack-0000, ...) and blocks of `racks_per_block` racks (<name>-block-000, ...).
struct NodePool {
  std::string name;
  int64_t count = 0;
  int gpus_per_node = 0;
  int64_t nodes_per_rack = 0;
  int64_t racks_per_block = 0;
  int nvlink_domain_size = 0;
  int numa_nodes = 1;
  std::string gpu_type;
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
};

// The nodes of `pool`, in order, appended to `out`.
void expandPool(const NodePool& pool, std::vector<NodeSpec>& out);

// One queue of the quota tree. Quantities are GPUs.
struct QueueSpec {
  std::string name;
  std::string parent;  // empty: a root queue
  int64_t guaranteed_gpus = 0;
  std::optional<int64_t> limit_gpus;  // absent: no limit
  int64_t over_quota_weight = 1;      // share of idle GPUs relative to siblings
};

// The simulated cluster: nodes in racks and blocks, and the queue tree. Node and
// queue order is the file's order (the pools' nodes first); names are unique.
struct ClusterSpec {
  std::vector<NodePool> pools;
  // Invariant: the pools' nodes (expandPool, in pool order), then the ones listed one by
  // one (`listed_nodes` of them).
  std::vector<NodeSpec> nodes;
  size_t listed_nodes = 0;
  std::vector<QueueSpec> queues;
  // Trace jobs whose virtual cluster names no leaf queue go here; empty means such a
  // job is an error.
  std::string default_queue;

  int64_t totalGpus() const;
  // True when some node offers CPU or memory: pods' CPU and memory requests count then.
  bool simulatesCpuAndMemory() const;
  // The queue named `name`, or nullptr.
  const QueueSpec* findQueue(std::string_view name) const;
  // True when no queue names `name` as its parent.
  bool isLeaf(std::string_view name) const;
};

// Parses the cluster YAML described in docs/simulator.md. Errors name the field path:
// "queues[3].guaranteed: must be a whole number >= 0".
Result<ClusterSpec> parseClusterSpec(std::string_view yaml_text);

// Reads and parses the cluster file at `path`: a node list (parseNodeList) when its name
// ends in .csv, else the YAML above.
Result<ClusterSpec> readClusterSpec(const std::string& path);

}  // namespace troupe::simulator
