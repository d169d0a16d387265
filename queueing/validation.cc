#include "queueing/validation.h"

#include <fmt/format.h>

#include <bit>

#include "queueing/gpu_picker.h"

namespace troupe::queueing {
namespace {

Error invalid(std::string path, std::string message) {
  return makeError(ErrorCode::Invalid, std::move(path), std::move(message));
}

Status nonNegative(const ResourceVector& v, const std::string& path) {
  for (std::size_t r = 0; r < kMaxResources; ++r)
    if (v[r] < 0)
      return invalid(fmt::format("{}[{}]", path, r),
                     fmt::format("Invalid value: {}: must be greater than or equal to 0", v[r]));
  return {};
}

// `path()` names the list: built only for an error.
template <class Path>
Status validPodSets(const std::vector<PodSet>& pod_sets, Path path) {
  for (std::size_t i = 0; i < pod_sets.size(); ++i) {
    const PodSet& ps = pod_sets[i];
    auto p = [&] { return fmt::format("{}[{}]", path(), i); };
    if (!ps.shape) return invalid(p() + ".shape", "Required value");
    if (ps.count < 1) return invalid(p() + ".count", "Invalid value: must be at least 1");
    if (ps.min_count < 1 || ps.min_count > ps.count)
      return invalid(p() + ".minCount", fmt::format("Invalid value: {}: must be in [1, count={}]",
                                                    ps.min_count, ps.count));
    if (ps.shape->requests.anyNegative()) return nonNegative(ps.shape->requests, p() + ".requests");
    if (ps.shape->requests[kGpu] > 64)
      return invalid(p() + ".requests[nvidia.com/gpu]", "Invalid value: at most 64 GPUs per pod");
    if (ps.shape->requests.isZero())
      return invalid(p() + ".requests", "Invalid value: a pod must request some resource");
    const std::int32_t milli = ps.shape->gpu_milli;
    if (milli < 0 || milli >= kGpuMilli)
      return invalid(p() + ".gpuMilli",
                     fmt::format("Invalid value: {}: must be in [0, {})", milli, kGpuMilli));
    if (milli > 0 && ps.shape->requests[kGpu] != 0)
      return invalid(p() + ".gpuMilli",
                     "Invalid value: a pod asking a fraction of one GPU asks no whole GPU");
  }
  return {};
}

}  // namespace

Status validateNode(const NodeSpec& node) {
  if (node.name.empty()) return invalid("node.name", "Required value");
  const std::string base = fmt::format("nodes[{}]", node.name);
  if (auto s = nonNegative(node.allocatable, base + ".allocatable"); !s) return s;
  if (node.allocatable[kGpu] > 64)
    return invalid(
        base + ".allocatable[nvidia.com/gpu]",
        fmt::format("Invalid value: {}: at most 64 GPUs per node", node.allocatable[kGpu]));
  // GPUs held by pods the engine does not place are indices of the node all the same.
  std::uint64_t held = 0;
  for (std::size_t i = 0; i < node.held_gpus.size(); ++i) {
    const int gpu = node.held_gpus[i];
    if (gpu < 0 || gpu >= 64 || ((held >> gpu) & 1))
      return invalid(
          fmt::format("{}.heldGpus[{}]", base, i),
          fmt::format("Invalid value: {}: must be a distinct GPU index in [0, 64)", gpu));
    held |= std::uint64_t{1} << gpu;
  }
  const std::int64_t gpus = node.allocatable[kGpu] + std::popcount(held);
  if (gpus > 64)
    return invalid(base + ".heldGpus",
                   fmt::format("Invalid value: {} GPUs in all: at most 64 GPUs per node", gpus));
  auto check_groups = [&](const std::vector<std::vector<int>>& groups,
                          const char* field) -> Status {
    for (std::size_t i = 0; i < groups.size(); ++i)
      for (int gpu : groups[i])
        if (gpu < 0 || gpu >= gpus)
          return invalid(fmt::format("{}.{}[{}]", base, field, i),
                         fmt::format("Invalid value: {}: GPU index must be in [0, {})", gpu, gpus));
    return {};
  };
  if (auto s = check_groups(node.nvlink_islands, "nvlinkIslands"); !s) return s;
  if (auto s = check_groups(node.numa_nodes, "numaNodes"); !s) return s;
  return {};
}

Status validateQueue(const QueueSpec& queue) {
  if (queue.name.empty()) return invalid("queue.name", "Required value");
  const std::string base = fmt::format("queues[{}]", queue.name);
  if (queue.parent == queue.name)
    return invalid(base + ".parent", "Invalid value: a queue cannot be its own parent");
  if (auto s = nonNegative(queue.guaranteed, base + ".guaranteed"); !s) return s;
  if (auto s = nonNegative(queue.limit, base + ".limit"); !s) return s;
  if (auto s = nonNegative(queue.lending_limit, base + ".lendingLimit"); !s) return s;
  if (auto s = nonNegative(queue.decayed_usage, base + ".decayedUsage"); !s) return s;
  if (!queue.guaranteed.fitsIn(queue.limit))
    return invalid(base + ".guaranteed", "Invalid value: must not exceed limit");
  if (queue.over_quota_weight < 0)
    return invalid(base + ".overQuotaWeight", "Invalid value: must be greater than or equal to 0");
  if (queue.max_wait_seconds && *queue.max_wait_seconds < 0)
    return invalid(base + ".maxWaitSeconds", "Invalid value: must be greater than or equal to 0");
  if (queue.min_runtime_seconds < 0)
    return invalid(base + ".minRuntimeSeconds",
                   "Invalid value: must be greater than or equal to 0");
  return {};
}

Status validateGang(const GangSpec& gang, const Policy& policy) {
  if (gang.name.empty()) return invalid("gang.name", "Required value");
  // Paths are built only for an error: loading a cluster validates every gang it holds.
  auto base = [&] { return fmt::format("gangs[{}]", gang.name); };
  if (gang.queue.empty()) return invalid(base() + ".queue", "Required value");
  if (gang.pod_sets.empty())
    return invalid(base() + ".podSets", "Required value: at least one pod set");
  if (auto s = validPodSets(gang.pod_sets, [&] { return base() + ".podSets"; }); !s) return s;
  if (!gang.alternatives.empty() && gang.variant.empty())
    return invalid(base() + ".variant",
                   "Required value: a gang with alternatives names its variant");
  for (std::size_t i = 0; i < gang.alternatives.size(); ++i) {
    const GangVariant& v = gang.alternatives[i];
    auto p = [&] { return fmt::format("{}.alternatives[{}]", base(), i); };
    if (v.name.empty()) return invalid(p() + ".name", "Required value");
    bool repeated = v.name == gang.variant;
    for (std::size_t j = 0; j < i; ++j) repeated = repeated || gang.alternatives[j].name == v.name;
    if (repeated) return invalid(p() + ".name", fmt::format("Duplicate value: \"{}\"", v.name));
    if (v.pod_sets.size() != gang.pod_sets.size())
      return invalid(p() + ".podSets",
                     fmt::format("Invalid value: {} pod sets: must be as many as the gang's {}",
                                 v.pod_sets.size(), gang.pod_sets.size()));
    if (auto s = validPodSets(v.pod_sets, [&] { return p() + ".podSets"; }); !s) return s;
  }
  if (gang.topology.mode != TopologyMode::None) {
    bool known = false;
    for (const auto& l : policy.topology_levels) known = known || l == gang.topology.level;
    if (!known)
      return invalid(base() + ".topology.level",
                     fmt::format("Unsupported value: \"{}\": not a topology level of the policy",
                                 gang.topology.level));
  }
  if (gang.runtime_estimate && *gang.runtime_estimate <= 0)
    return invalid(base() + ".runtimeEstimate", "Invalid value: must be greater than 0");
  return {};
}

}  // namespace troupe::queueing
