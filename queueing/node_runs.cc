#include "queueing/node_runs.h"

#include <algorithm>
#include <bit>

namespace troupe::queueing {

std::int32_t NodeRuns::popcount(std::uint64_t mask) {
  return static_cast<std::int32_t>(std::popcount(mask));
}

void NodeRuns::rebuild(const std::vector<std::uint64_t>& free_gpus) {
  chunk_most_.assign((free_gpus.size() + kNodeChunk - 1) / kNodeChunk, 0);
  for (std::size_t n = 0; n < free_gpus.size(); ++n) {
    auto& most = chunk_most_[n / kNodeChunk];
    most = std::max(most, popcount(free_gpus[n]));
  }
  block_most_.assign((chunk_most_.size() + kChunksPerBlock - 1) / kChunksPerBlock, 0);
  for (std::size_t b = 0; b < block_most_.size(); ++b) refreshBlock(b);
}

bool NodeRuns::holdsMost(NodeId n, std::uint64_t free_gpus) const {
  return n / kNodeChunk < chunk_most_.size() && popcount(free_gpus) >= chunk_most_[n / kNodeChunk];
}

void NodeRuns::raised(NodeId n, std::uint64_t free_gpus) {
  if (n / kNodeChunk >= chunk_most_.size()) return;
  auto& most = chunk_most_[n / kNodeChunk];
  most = std::max(most, popcount(free_gpus));
  if (n / kBlockNodes < block_most_.size()) {
    auto& block_most = block_most_[n / kBlockNodes];
    block_most = std::max(block_most, most);
  }
}

void NodeRuns::refreshBlock(std::size_t block) {
  const std::size_t begin = block * kChunksPerBlock;
  const std::size_t end = std::min<std::size_t>(begin + kChunksPerBlock, chunk_most_.size());
  std::int32_t most = 0;
  for (std::size_t c = begin; c < end; ++c) most = std::max(most, chunk_most_[c]);
  block_most_[block] = most;
}

std::size_t NodeRuns::skipFullChunks(const std::vector<NodeId>& eligible, std::size_t i,
                                     std::int64_t gpus) const {
  while (i < eligible.size()) {
    // A block whose most is too low is skipped whole; otherwise the node's run, if its
    // most is too low. A block's most bounds its runs', so this lands where skipping run
    // by run would.
    NodeId next_run;
    if (blockCannotHold(eligible[i], gpus))
      next_run = (eligible[i] / kBlockNodes + 1) * kBlockNodes;
    else if (chunkCannotHold(eligible[i], gpus))
      next_run = (eligible[i] / kNodeChunk + 1) * kNodeChunk;
    else
      break;
    // `eligible` holds distinct node ids in order, so at most next_run - eligible[i] of
    // them lie below next_run: the next run starts within that many places of i, and
    // exactly there when every node from eligible[i] to next_run is eligible (the usual
    // case, checked first: a search of even 16 places costs mispredicted branches in
    // every run skipped).
    const std::size_t bound =
        std::min(eligible.size(), i + static_cast<std::size_t>(next_run - eligible[i]));
    if (bound < eligible.size() && eligible[bound] == next_run) {
      i = bound;
      continue;
    }
    i = static_cast<std::size_t>(
        std::lower_bound(eligible.begin() + static_cast<std::ptrdiff_t>(i),
                         eligible.begin() + static_cast<std::ptrdiff_t>(bound), next_run) -
        eligible.begin());
  }
  return i;
}

}  // namespace troupe::queueing
