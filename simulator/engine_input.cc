#include "simulator/engine_input.h"

#include <algorithm>

namespace troupe::simulator {

std::vector<queueing::NodeSpec> engineNodes(const ClusterSpec& cluster) {
  std::vector<queueing::NodeSpec> nodes;
  nodes.reserve(cluster.nodes.size());
  for (const auto& spec : cluster.nodes) {
    queueing::NodeSpec node;
    node.name = spec.name;
    node.labels = {{kBlockLabel, spec.block}, {kRackLabel, spec.rack}};
    node.allocatable = queueing::ResourceVector::of(spec.gpus, 0, 0);
    if (spec.nvlink_domain_size > 0) {
      for (int first = 0; first < spec.gpus; first += spec.nvlink_domain_size) {
        std::vector<int> island;
        for (int g = first; g < first + spec.nvlink_domain_size; ++g) island.push_back(g);
        node.nvlink_islands.push_back(std::move(island));
      }
    }
    if (spec.numa_nodes > 1) {
      int per_numa = spec.gpus / spec.numa_nodes;
      for (int first = 0; first < spec.gpus; first += per_numa) {
        std::vector<int> numa;
        for (int g = first; g < first + per_numa; ++g) numa.push_back(g);
        node.numa_nodes.push_back(std::move(numa));
      }
    }
    nodes.push_back(std::move(node));
  }
  return nodes;
}

std::vector<queueing::QueueSpec> engineQueues(const ClusterSpec& cluster) {
  std::vector<queueing::QueueSpec> queues;
  for (const auto& spec : cluster.queues) {
    queueing::QueueSpec queue;
    queue.name = spec.name;
    queue.parent = spec.parent;
    queue.guaranteed = queueing::ResourceVector::of(spec.guaranteed_gpus, 0, 0);
    if (spec.limit_gpus) queue.limit[queueing::kGpu] = *spec.limit_gpus;
    queue.over_quota_weight = spec.over_quota_weight;
    queues.push_back(std::move(queue));
  }
  return queues;
}

GangShape gangShapeFor(int gpus, int node_gpus, int64_t cluster_gpus) {
  if (gpus <= 0 || node_gpus <= 0 || gpus > cluster_gpus) return {};
  if (gpus <= node_gpus) return {1, gpus};
  int pods = (gpus + node_gpus - 1) / node_gpus;
  while (gpus % pods != 0) ++pods;
  return {pods, gpus / pods};
}

queueing::GangSpec engineGang(const TraceJob& job, const std::string& queue, GangShape shape,
                              const GangOptions& options) {
  queueing::GangSpec gang;
  gang.name = job.id;
  gang.queue = queue;
  gang.submit_time = job.submit_s;
  auto pod = std::make_shared<queueing::PodShape>();
  pod->requests = queueing::ResourceVector::of(shape.gpus_per_pod, 0, 0);
  queueing::PodSet set;
  set.shape = std::move(pod);
  set.count = shape.pods;
  set.min_count = (options.elastic && shape.pods > 1) ? 1 : shape.pods;
  gang.pod_sets.push_back(std::move(set));
  if (shape.pods > 1) {
    gang.topology.mode = options.topology;
    gang.topology.level = options.topology_level;
  }
  if (options.known_durations) gang.runtime_estimate = job.duration_s;
  return gang;
}

}  // namespace troupe::simulator
