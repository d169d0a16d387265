#include "queueing/gpu_picker.h"

#include <algorithm>
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

std::int64_t fractionsFit(std::uint64_t free, const GpuShares& shares, std::int32_t milli,
                          std::int64_t cap) {
  if (milli <= 0 || cap <= 0) return 0;
  std::int64_t n = std::popcount(free) * std::int64_t{kGpuMilli / milli};
  for (std::int32_t used : shares)
    if (used > 0) n += (kGpuMilli - used) / milli;
  return std::min(n, cap);
}

std::int64_t fractionRoom(std::uint64_t free, const GpuShares& shares) {
  std::int64_t room = std::popcount(free) * std::int64_t{kGpuMilli};
  for (std::int32_t used : shares)
    if (used > 0) room += kGpuMilli - used;
  return room;
}

int pickSharedGpu(std::uint64_t free, const GpuShares& shares, std::int32_t milli) {
  int best = -1;
  for (std::size_t i = 0; i < shares.size(); ++i) {
    const std::int32_t used = shares[i];
    if (used <= 0 || used + milli > kGpuMilli) continue;
    if (best < 0 || used > shares[static_cast<std::size_t>(best)]) best = static_cast<int>(i);
  }
  if (best >= 0) return best;
  return free == 0 ? -1 : std::countr_zero(free);
}

}  // namespace troupe::queueing
