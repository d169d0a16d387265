#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "queueing/ids.h"

namespace troupe::queueing {

// Per run of kNodeChunk consecutive node ids: the most free GPUs one node of it has (any
// node, usable or not). A scan for pods of g GPUs skips a run whose most is below g: none
// of its nodes could take one. Runs are grouped again in blocks of kChunksPerBlock, each
// with the most of its runs, so that a scan over a nearly full cluster of 10,000 nodes
// checks about 40 blocks rather than 625 runs.
//
// Invariant: after rebuild(), and as long as every change of a node's free GPUs is told
// with lowered() or raised(), each run's most is the largest popcount of its nodes' free
// GPUs, and each block's the largest of its runs'.
class NodeRuns {
 public:
  static constexpr NodeId kNodeChunk = 16;
  static constexpr NodeId kChunksPerBlock = 16;
  static constexpr NodeId kBlockNodes = kNodeChunk * kChunksPerBlock;

  // Every run's and block's most again, from the nodes' free GPUs (free_gpus[n] for node n).
  void rebuild(const std::vector<std::uint64_t>& free_gpus);

  // Whether node n, with `free_gpus` free before a take, has its run's most: only such a
  // node can lower it.
  bool holdsMost(NodeId n, std::uint64_t free_gpus) const;
  // Node n's free GPUs went down: its run's most is counted again from `free_gpus_of`
  // (a function NodeId -> free GPU mask), with its block's.
  template <typename FreeGpusOf>
  void lowered(NodeId n, std::size_t node_count, FreeGpusOf free_gpus_of) {
    const std::size_t chunk = n / kNodeChunk;
    if (chunk >= chunk_most_.size()) return;
    std::int32_t most = 0;
    const std::size_t end = std::min<std::size_t>((chunk + 1) * kNodeChunk, node_count);
    for (std::size_t m = chunk * kNodeChunk; m < end; ++m)
      most = std::max(most, popcount(free_gpus_of(static_cast<NodeId>(m))));
    chunk_most_[chunk] = most;
    if (chunk / kChunksPerBlock < block_most_.size()) refreshBlock(chunk / kChunksPerBlock);
  }
  // Node n's free GPUs went up to `free_gpus`.
  void raised(NodeId n, std::uint64_t free_gpus);

  // Whether no node of n's run, or of its block, could take a pod of `gpus` GPUs.
  bool chunkCannotHold(NodeId n, std::int64_t gpus) const {
    const std::size_t c = n / kNodeChunk;
    return gpus > 0 && c < chunk_most_.size() && chunk_most_[c] < gpus;
  }
  bool blockCannotHold(NodeId n, std::int64_t gpus) const {
    const std::size_t b = n / kBlockNodes;
    return gpus > 0 && b < block_most_.size() && block_most_[b] < gpus;
  }
  // The first index at or after i in `eligible` (distinct node ids, in order) whose node
  // may hold a pod of `gpus` GPUs by its run's most (eligible.size() when none).
  std::size_t skipFullChunks(const std::vector<NodeId>& eligible, std::size_t i,
                             std::int64_t gpus) const;

  // The most of run c and of block b, for tests.
  std::int32_t runMost(std::size_t c) const { return chunk_most_[c]; }
  std::int32_t blockMost(std::size_t b) const { return block_most_[b]; }
  std::size_t runs() const { return chunk_most_.size(); }
  std::size_t blocks() const { return block_most_.size(); }

 private:
  static std::int32_t popcount(std::uint64_t mask);
  void refreshBlock(std::size_t block);

  std::vector<std::int32_t> chunk_most_;  // by run
  std::vector<std::int32_t> block_most_;  // by block
};

}  // namespace troupe::queueing
