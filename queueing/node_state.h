#pragma once

#include <array>
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
  bool usable() const { return present && spec.ready && !spec.unschedulable; }
};

}  // namespace troupe::queueing
