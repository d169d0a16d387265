#pragma once

#include <cstdint>
#include <vector>

namespace troupe::queueing {

// A node's GPUs grouped by NVLink island, by NUMA node, and by both (the non-empty
// intersections), as masks (bit i = GPU i). Built once per node.
struct GpuGroups {
  std::vector<std::uint64_t> islands;
  std::vector<std::uint64_t> numa;
  std::vector<std::uint64_t> both;
  static GpuGroups of(std::vector<std::uint64_t> islands, std::vector<std::uint64_t> numa);
};

// Chooses `count` GPUs among the free ones of a node (bit i = GPU i), keeping a pod
// inside one NVLink island and one NUMA node when the node describes them:
//   1. the smallest (island ∩ NUMA node) group with enough free GPUs,
//   2. else the smallest island with enough,
//   3. else the smallest NUMA node with enough,
//   4. else the lowest free indices.
// "Smallest" is best fit: fewest free GPUs, so large groups stay whole for large pods;
// ties go to the group listed first. Within the group, the lowest indices. Returns 0 when
// fewer than `count` GPUs are free.
std::uint64_t pickGpus(std::uint64_t free, const GpuGroups& groups, int count);

}  // namespace troupe::queueing
