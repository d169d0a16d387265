#include "simulator/engine_input.h"

#include <algorithm>

namespace troupe::simulator {
namespace {

constexpr int64_t kMiB = int64_t{1} << 20;

}  // namespace

std::vector<queueing::NodeSpec> engineNodes(const ClusterSpec& cluster) {
  std::vector<queueing::NodeSpec> nodes;
  nodes.reserve(cluster.nodes.size());
  for (const auto& spec : cluster.nodes) {
    queueing::NodeSpec node;
    node.name = spec.name;
    node.labels = {{kBlockLabel, spec.block}, {kRackLabel, spec.rack}};
    if (!spec.gpu_type.empty()) node.labels.emplace_back(kGpuTypeLabel, spec.gpu_type);
    node.allocatable =
        queueing::ResourceVector::of(spec.gpus, spec.cpu_milli, spec.memory_mib * kMiB);
    node.allocatable[kGpuMilliSlot] = int64_t{spec.gpus} * 1000;
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
    queue.guaranteed[kGpuMilliSlot] = spec.guaranteed_gpus * 1000;
    if (spec.limit_gpus) {
      queue.limit[queueing::kGpu] = *spec.limit_gpus;
      queue.limit[kGpuMilliSlot] = *spec.limit_gpus * 1000;
    }
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

GangShape gangShapeOf(const TraceJob& job, int node_gpus, int64_t cluster_gpus,
                      bool cpu_and_memory) {
  if (job.never_ran) return {};
  if (job.gpu_milli > 0) return cluster_gpus > 0 ? GangShape{1, 0, job.gpu_milli} : GangShape{};
  if (job.gpus == 0) {
    const bool asks = cpu_and_memory && (job.cpu_milli > 0 || job.memory_mib > 0);
    return asks ? GangShape{1, 0, 0} : GangShape{};
  }
  return gangShapeFor(job.gpus, node_gpus, cluster_gpus);
}

queueing::GangSpec engineGang(const TraceJob& job, const std::string& queue, GangShape shape,
                              const GangOptions& options) {
  queueing::GangSpec gang;
  gang.name = job.id;
  gang.queue = queue;
  gang.submit_time = job.submit_s;
  auto pod = std::make_shared<queueing::PodShape>();
  pod->requests = queueing::ResourceVector::of(shape.gpus_per_pod, 0, 0);
  pod->requests[kGpuMilliSlot] = shape.milliPerPod();
  pod->gpu_milli = shape.gpu_milli_per_pod;
  if (options.cpu_and_memory) {
    // The job's CPU and memory, split evenly over its pods (rounded up).
    pod->requests[queueing::kCpu] = (job.cpu_milli + shape.pods - 1) / shape.pods;
    pod->requests[queueing::kMemory] = (job.memory_mib + shape.pods - 1) / shape.pods * kMiB;
  }
  if (!job.gpu_types.empty()) {
    pod->affinity.push_back({kGpuTypeLabel, queueing::SelectorOperator::In, job.gpu_types});
  }
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
