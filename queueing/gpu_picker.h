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

// A whole GPU in thousandths: what the GPU indices shared by pods asking a fraction of one
// GPU (PodShape::gpu_milli) hold together, at most.
inline constexpr std::int32_t kGpuMilli = 1000;

// The thousandths of each GPU index of a node that pods asking a fraction of one GPU hold
// (index i at [i]); empty while none does. An index is shared while its entry is above 0:
// it is then in no free mask, and no whole-GPU pod is given it.
using GpuShares = std::vector<std::int32_t>;

// How many pods of `milli` thousandths each fit on a node's GPUs (at most `cap`): every
// shared index holds (1000 - used) / milli of them, every free index 1000 / milli.
std::int64_t fractionsFit(std::uint64_t free, const GpuShares& shares, std::int32_t milli,
                          std::int64_t cap);

// The thousandths a node still has for fractions: its free indices whole, and what each
// shared index has left. Orders nodes for packing fractional pods.
std::int64_t fractionRoom(std::uint64_t free, const GpuShares& shares);

// The GPU index for one pod of `milli` thousandths: among the shared indices that still
// have room for it, the one with the least room (bin packing keeps free indices whole for
// whole-GPU pods), ties to the lowest index; else the lowest free index; -1 when none fits.
int pickSharedGpu(std::uint64_t free, const GpuShares& shares, std::int32_t milli);

}  // namespace troupe::queueing
