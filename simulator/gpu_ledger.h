#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "simulator/cluster_spec.h"

namespace troupe::simulator {

// Which GPU of which node each running pod holds, whole or a share of it, kept by the
// simulator independently of the engine so that a decision that would overcommit a GPU
// stops the replay loudly (a broken invariant) instead of skewing the figures.
class GpuLedger {
 public:
  explicit GpuLedger(const ClusterSpec& cluster);

  // The node's index, or -1.
  int nodeIndex(const std::string& name) const;
  // Takes `gpus` (indices) on `node` whole; when `gpus` is empty, takes any `count` free
  // GPUs (for engines that do not name indices) and returns the ones taken. With
  // `gpu_milli` > 0 the pod shares one GPU instead (count is 0): `gpus` names it, or, when
  // empty, the shared GPU with the least room that still has enough, else the lowest free.
  std::vector<int> take(int node, const std::vector<int>& gpus, int count, int gpu_milli = 0);
  void release(int node, const std::vector<int>& gpus, int gpu_milli = 0);

  // GPUs of the node nobody holds any of.
  int freeGpus(int node) const;
  // GPUs some pod holds all or part of.
  int64_t usedGpus() const { return used_total_; }
  // GPUs held, in thousandths: 1000 per whole GPU, the shares of shared ones.
  int64_t usedMilli() const { return used_milli_; }
  // Shared GPUs not full (some but not all of their 1000 thousandths held), and the
  // thousandths left on them: capacity only another fraction can use.
  int64_t partlyUsedGpus() const { return partly_used_; }
  int64_t strandedMilli() const { return stranded_milli_; }

 private:
  void setShare(size_t n, int gpu, int milli);

  // Invariant: bit g of whole_[n] is set iff a running pod holds GPU g of node n whole;
  // share_[offset_[n] + g] is the thousandths fractional pods hold of it, 0 if whole_ has
  // bit g, at most 1000; bit g of shared_[n] is set iff that share is above 0; only GPUs
  // below capacity_[n] are ever held.
  std::vector<uint64_t> whole_;
  std::vector<uint64_t> shared_;
  std::vector<int> share_;
  std::vector<size_t> offset_;
  std::vector<int> capacity_;
  std::vector<std::string> names_;
  std::unordered_map<std::string, int> index_;
  int64_t used_total_ = 0;
  int64_t used_milli_ = 0;
  int64_t partly_used_ = 0;
  int64_t stranded_milli_ = 0;
};

}  // namespace troupe::simulator
