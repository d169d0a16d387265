#include "queueing/gpu_picker.h"

#include <bit>

namespace troupe::queueing {
namespace {

std::uint64_t lowestBits(std::uint64_t set, int count) {
  std::uint64_t out = 0;
  for (int i = 0; i < count; ++i) {
    const std::uint64_t bit = set & (~set + 1);
    out |= bit;
    set &= ~bit;
  }
  return out;
}

// Best fit among groups: the group (masked by `free`) with the fewest free GPUs that
// still has `count`; 0 when none has.
std::uint64_t bestFit(std::uint64_t free, const std::vector<std::uint64_t>& groups, int count) {
  std::uint64_t best = 0;
  int best_size = 65;
  for (std::uint64_t g : groups) {
    const std::uint64_t avail = free & g;
    const int size = std::popcount(avail);
    if (size >= count && size < best_size) {
      best = avail;
      best_size = size;
    }
  }
  return best;
}

}  // namespace

GpuGroups GpuGroups::of(std::vector<std::uint64_t> islands, std::vector<std::uint64_t> numa) {
  GpuGroups g{std::move(islands), std::move(numa), {}};
  for (std::uint64_t i : g.islands)
    for (std::uint64_t n : g.numa)
      if ((i & n) != 0) g.both.push_back(i & n);
  return g;
}

std::uint64_t pickGpus(std::uint64_t free, const GpuGroups& groups, int count) {
  if (count <= 0) return 0;
  if (std::popcount(free) < count) return 0;
  if (const std::uint64_t g = bestFit(free, groups.both, count)) return lowestBits(g, count);
  if (const std::uint64_t g = bestFit(free, groups.islands, count)) return lowestBits(g, count);
  if (const std::uint64_t g = bestFit(free, groups.numa, count)) return lowestBits(g, count);
  return lowestBits(free, count);
}

}  // namespace troupe::queueing
