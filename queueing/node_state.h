#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <vector>

#include "queueing/gpu_picker.h"
#include "queueing/ids.h"
#include "queueing/resource_vector.h"
#include "queueing/snapshot.h"

namespace troupe::queueing {

struct NodeState {
  // What a placement scan reads of every eligible node comes first, on the first two cache
  // lines; the spec, the GPU groups and the gang list follow. A scan at 5,000 nodes is
  // bound by these loads.
  // Invariant: free = spec.allocatable - (requests of the running pods on this node).
  ResourceVector free;
  // Invariant: bit i set <=> GPU i exists and no running pod holds it.
  std::uint64_t free_gpus = 0;
  std::uint64_t all_gpus = 0;
  std::array<std::int32_t, kMaxLevels> domain{-1, -1, -1, -1};  // per topology level
  GangId reserved_for = kNoGang;
  std::uint32_t rank = 0;  // position by name among all nodes
  // Set with reserved_for: when the reservation's nodes are expected to be free.
  Seconds reserved_until = 0;
  bool present = true;
  std::uint32_t pods = 0;  // running pods on it
  NodeSpec spec;
  GpuGroups gpu_groups;  // NVLink islands and NUMA nodes as GPU masks
  // Invariant: the running gangs with a pod on it, once per pod (startRunning, stopRunning,
  // addPods and removePods keep it), in no particular order.
  std::vector<GangId> gangs;
  // Invariant: entry i = the thousandths of GPU i its running pods that ask a fraction of
  // one GPU hold (their PodShape::gpu_milli), at most 1000; empty until one runs here.
  GpuShares gpu_shares;
  bool usable() const { return present && spec.ready && !spec.unschedulable; }
};

// How many pods asking `req` each, and `gpu_milli` thousandths of one GPU when above 0, fit
// on `free` with the free GPU indices `free_gpus` and the shared ones `shares`, at most `cap`.
inline std::int64_t podsFitOn(const ResourceVector& free, std::uint64_t free_gpus,
                              const GpuShares& shares, const ResourceVector& req,
                              std::int32_t gpu_milli, std::int64_t cap) {
  std::int64_t k = free.copiesOf(req, cap);
  if (req[kGpu] > 0) k = std::min<std::int64_t>(k, std::popcount(free_gpus) / req[kGpu]);
  if (gpu_milli > 0) k = fractionsFit(free_gpus, shares, gpu_milli, k);
  return std::max<std::int64_t>(k, 0);
}

}  // namespace troupe::queueing
