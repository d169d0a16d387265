#include "simulator/gpu_ledger.h"

#include <bit>

#include "common/check.h"

namespace troupe::simulator {

GpuLedger::GpuLedger(const ClusterSpec& cluster) {
  for (const auto& node : cluster.nodes) {
    TROUPE_CHECK(node.gpus <= 64, "GpuLedger: node {} has {} GPUs, at most 64 are supported",
                 node.name, node.gpus);
    index_.emplace(node.name, static_cast<int>(names_.size()));
    names_.push_back(node.name);
    capacity_.push_back(node.gpus);
    used_.push_back(0);
  }
}

int GpuLedger::nodeIndex(const std::string& name) const {
  auto it = index_.find(name);
  return it == index_.end() ? -1 : it->second;
}

std::vector<int> GpuLedger::take(int node, const std::vector<int>& gpus, int count) {
  TROUPE_CHECK(node >= 0 && static_cast<size_t>(node) < used_.size(), "GpuLedger: no node {}",
               node);
  auto n = static_cast<size_t>(node);
  std::vector<int> taken = gpus;
  if (taken.empty()) {
    for (int g = 0; g < capacity_[n] && static_cast<int>(taken.size()) < count; ++g) {
      if (!(used_[n] & (uint64_t{1} << g))) taken.push_back(g);
    }
  }
  TROUPE_CHECK(static_cast<int>(taken.size()) == count,
               "GPU overcommit on {}: a pod needs {} GPUs, got {} ({} free of {})", names_[n],
               count, taken.size(), freeGpus(node), capacity_[n]);
  for (int g : taken) {
    TROUPE_CHECK(g >= 0 && g < capacity_[n], "GPU {} does not exist on {} ({} GPUs)", g, names_[n],
                 capacity_[n]);
    uint64_t bit = uint64_t{1} << g;
    TROUPE_CHECK(!(used_[n] & bit), "GPU overcommit: GPU {} of {} is already held", g, names_[n]);
    used_[n] |= bit;
  }
  used_total_ += count;
  return taken;
}

void GpuLedger::release(int node, const std::vector<int>& gpus) {
  auto n = static_cast<size_t>(node);
  for (int g : gpus) {
    uint64_t bit = uint64_t{1} << g;
    TROUPE_CHECK(used_[n] & bit, "GpuLedger: releasing GPU {} of {}, which is free", g, names_[n]);
    used_[n] &= ~bit;
  }
  used_total_ -= static_cast<int64_t>(gpus.size());
}

int GpuLedger::freeGpus(int node) const {
  auto n = static_cast<size_t>(node);
  return capacity_[n] - std::popcount(used_[n]);
}

}  // namespace troupe::simulator
