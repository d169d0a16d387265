#include "simulator/gpu_ledger.h"

#include <bit>

#include "common/check.h"

namespace troupe::simulator {
namespace {

constexpr int kWhole = 1000;

}  // namespace

GpuLedger::GpuLedger(const ClusterSpec& cluster) {
  for (const auto& node : cluster.nodes) {
    TROUPE_CHECK(node.gpus <= 64, "GpuLedger: node {} has {} GPUs, at most 64 are supported",
                 node.name, node.gpus);
    index_.emplace(node.name, static_cast<int>(names_.size()));
    names_.push_back(node.name);
    capacity_.push_back(node.gpus);
    whole_.push_back(0);
    shared_.push_back(0);
    offset_.push_back(share_.size());
    share_.resize(share_.size() + static_cast<size_t>(node.gpus), 0);
  }
}

int GpuLedger::nodeIndex(const std::string& name) const {
  auto it = index_.find(name);
  return it == index_.end() ? -1 : it->second;
}

// Moves GPU `gpu` of node n to `milli` shared thousandths, keeping the totals.
void GpuLedger::setShare(size_t n, int gpu, int milli) {
  int& share = share_[offset_[n] + static_cast<size_t>(gpu)];
  auto partly = [](int m) { return m > 0 && m < kWhole; };
  partly_used_ += (partly(milli) ? 1 : 0) - (partly(share) ? 1 : 0);
  stranded_milli_ += (partly(milli) ? kWhole - milli : 0) - (partly(share) ? kWhole - share : 0);
  used_total_ += (milli > 0 ? 1 : 0) - (share > 0 ? 1 : 0);
  used_milli_ += milli - share;
  share = milli;
  const uint64_t bit = uint64_t{1} << gpu;
  shared_[n] = milli > 0 ? (shared_[n] | bit) : (shared_[n] & ~bit);
}

std::vector<int> GpuLedger::take(int node, const std::vector<int>& gpus, int count, int gpu_milli) {
  TROUPE_CHECK(node >= 0 && static_cast<size_t>(node) < whole_.size(), "GpuLedger: no node {}",
               node);
  auto n = static_cast<size_t>(node);
  auto shareOf = [&](int g) { return share_[offset_[n] + static_cast<size_t>(g)]; };
  auto isWhole = [&](int g) { return (whole_[n] & (uint64_t{1} << g)) != 0; };
  std::vector<int> taken = gpus;
  if (gpu_milli > 0) {
    if (taken.empty()) {
      int best = -1;
      for (int g = 0; g < capacity_[n]; ++g) {
        if (isWhole(g) || shareOf(g) + gpu_milli > kWhole) continue;
        // Best fit: the shared GPU with the least room left; a free one only if none.
        const int room = shareOf(g) > 0 ? kWhole - shareOf(g) : 2 * kWhole;
        const int best_room =
            best < 0 ? 3 * kWhole : (shareOf(best) > 0 ? kWhole - shareOf(best) : 2 * kWhole);
        if (room < best_room) best = g;
      }
      if (best >= 0) taken.push_back(best);
    }
    TROUPE_CHECK(taken.size() == 1 && count == 0,
                 "GPU share on {}: a pod of {} thousandths needs one GPU, got {} ({} whole)",
                 names_[n], gpu_milli, taken.size(), count);
    const int g = taken[0];
    TROUPE_CHECK(g >= 0 && g < capacity_[n], "GPU {} does not exist on {} ({} GPUs)", g, names_[n],
                 capacity_[n]);
    TROUPE_CHECK(!isWhole(g), "GPU overcommit: a share of GPU {} of {}, which a pod holds whole", g,
                 names_[n]);
    TROUPE_CHECK(shareOf(g) + gpu_milli <= kWhole,
                 "GPU overcommit: GPU {} of {} holds {} thousandths, a pod adds {}", g, names_[n],
                 shareOf(g), gpu_milli);
    setShare(n, g, shareOf(g) + gpu_milli);
    return taken;
  }
  if (taken.empty()) {
    for (int g = 0; g < capacity_[n] && static_cast<int>(taken.size()) < count; ++g) {
      if (!isWhole(g) && shareOf(g) == 0) taken.push_back(g);
    }
  }
  TROUPE_CHECK(static_cast<int>(taken.size()) == count,
               "GPU overcommit on {}: a pod needs {} GPUs, got {} ({} free of {})", names_[n],
               count, taken.size(), freeGpus(node), capacity_[n]);
  for (int g : taken) {
    TROUPE_CHECK(g >= 0 && g < capacity_[n], "GPU {} does not exist on {} ({} GPUs)", g, names_[n],
                 capacity_[n]);
    TROUPE_CHECK(!isWhole(g), "GPU overcommit: GPU {} of {} is already held", g, names_[n]);
    TROUPE_CHECK(shareOf(g) == 0,
                 "GPU overcommit: GPU {} of {} is shared ({} thousandths held), a pod takes it "
                 "whole",
                 g, names_[n], shareOf(g));
    whole_[n] |= uint64_t{1} << g;
  }
  used_total_ += count;
  used_milli_ += int64_t{count} * kWhole;
  return taken;
}

void GpuLedger::release(int node, const std::vector<int>& gpus, int gpu_milli) {
  auto n = static_cast<size_t>(node);
  if (gpu_milli > 0) {
    TROUPE_CHECK(gpus.size() == 1, "GpuLedger: a share released on {} GPUs of {}", gpus.size(),
                 names_[n]);
    const int held = share_[offset_[n] + static_cast<size_t>(gpus[0])];
    TROUPE_CHECK(held >= gpu_milli, "GpuLedger: releasing {} thousandths of GPU {} of {}, {} held",
                 gpu_milli, gpus[0], names_[n], held);
    setShare(n, gpus[0], held - gpu_milli);
    return;
  }
  for (int g : gpus) {
    uint64_t bit = uint64_t{1} << g;
    TROUPE_CHECK(whole_[n] & bit, "GpuLedger: releasing GPU {} of {}, which is free", g, names_[n]);
    whole_[n] &= ~bit;
  }
  used_total_ -= static_cast<int64_t>(gpus.size());
  used_milli_ -= static_cast<int64_t>(gpus.size()) * kWhole;
}

int GpuLedger::freeGpus(int node) const {
  auto n = static_cast<size_t>(node);
  return capacity_[n] - std::popcount(whole_[n] | shared_[n]);
}

}  // namespace troupe::simulator
