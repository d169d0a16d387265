#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "simulator/cluster_spec.h"

namespace troupe::simulator {

// Which GPU of which node each running pod holds, kept by the simulator independently of
// the engine so that a decision that would overcommit a GPU stops the replay loudly
// (a broken invariant) instead of skewing the figures.
class GpuLedger {
 public:
  explicit GpuLedger(const ClusterSpec& cluster);

  // The node's index, or -1.
  int nodeIndex(const std::string& name) const;
  // Takes `gpus` (indices) on `node`; when `gpus` is empty, takes any `count` free GPUs
  // (for engines that do not name indices) and returns the ones taken.
  std::vector<int> take(int node, const std::vector<int>& gpus, int count);
  void release(int node, const std::vector<int>& gpus);

  int freeGpus(int node) const;
  int64_t usedGpus() const { return used_total_; }

 private:
  // Invariant: bit g of used_[n] is set iff some running pod holds GPU g of node n,
  // and only bits below capacity_[n] are ever set.
  std::vector<uint64_t> used_;
  std::vector<int> capacity_;
  std::vector<std::string> names_;
  std::unordered_map<std::string, int> index_;
  int64_t used_total_ = 0;
};

}  // namespace troupe::simulator
