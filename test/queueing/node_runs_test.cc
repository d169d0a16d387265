// NodeRuns::skipFullChunks: a placement scan skips blocks and runs of node ids whose
// most free GPUs on one node are too few. It must land exactly where a scan of every
// eligible node, one by one, would: on the first node at or after the start whose run
// could hold a pod of that many GPUs. And takeOnNode and releaseOnNode must keep each run's
// and each block's most what a count from scratch gives.
#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <random>
#include <vector>

#include "queueing/engine_state.h"

namespace troupe::queueing {
namespace {

std::size_t oneByOne(const NodeRuns& runs, const std::vector<NodeId>& eligible, std::size_t i,
                     std::int64_t gpus) {
  while (i < eligible.size() && runs.chunkCannotHold(eligible[i], gpus)) ++i;
  return i;
}

TEST_CASE("skipping full runs of nodes lands where a scan of every node would",
          "[queueing][placement]") {
  std::mt19937 rng(20261123);
  for (int world = 0; world < 2000; ++world) {
    // Up to 12 blocks; every other world has whole blocks of runs with few free GPUs, the
    // blocks a scan over a nearly full cluster skips at once. Each run's most is drawn, and
    // its nodes have that many free GPUs or fewer, one of them exactly that many.
    const auto nodes = static_cast<NodeId>(1 + rng() % (12 * NodeRuns::kBlockNodes));
    std::vector<std::uint64_t> free_gpus(nodes);
    std::uint32_t block_low = 9;
    for (std::size_t c = 0; c * NodeRuns::kNodeChunk < nodes; ++c) {
      if (c % NodeRuns::kChunksPerBlock == 0) block_low = world % 2 == 0 ? 9 : 1 + rng() % 9;
      const auto most = static_cast<std::uint32_t>(rng() % block_low);
      const std::size_t begin = c * NodeRuns::kNodeChunk;
      const std::size_t end = std::min<std::size_t>(begin + NodeRuns::kNodeChunk, nodes);
      const std::size_t top = begin + rng() % (end - begin);
      for (std::size_t n = begin; n < end; ++n) {
        const std::uint32_t k = n == top || most == 0 ? most : rng() % (most + 1);
        free_gpus[n] = (std::uint64_t{1} << k) - 1;
      }
    }
    NodeRuns runs;
    runs.rebuild(free_gpus);
    // Eligible nodes: all of them, or a random subset (selectors, unusable nodes).
    std::vector<NodeId> eligible;
    const unsigned keep_percent = world % 3 == 0 ? 100 : 10 + rng() % 90;
    for (NodeId n = 0; n < nodes; ++n)
      if (rng() % 100 < keep_percent) eligible.push_back(n);
    const auto gpus = static_cast<std::int64_t>(rng() % 9);
    const std::size_t step = 1 + eligible.size() / 400;  // about 400 starts a world
    for (std::size_t start = 0; start <= eligible.size(); start += step) {
      INFO("world " << world << ", " << nodes << " nodes, " << eligible.size()
                    << " eligible, start " << start << ", " << gpus << " GPUs");
      REQUIRE(runs.skipFullChunks(eligible, start, gpus) == oneByOne(runs, eligible, start, gpus));
    }
  }
}

TEST_CASE("taking and releasing GPUs keeps every run's and block's most exact",
          "[queueing][placement]") {
  std::mt19937 rng(20261125);
  for (int world = 0; world < 20; ++world) {
    EngineState st{Policy{}};
    const auto count = static_cast<NodeId>(1 + rng() % (3 * NodeRuns::kBlockNodes));
    st.nodes.resize(count);
    for (auto& node : st.nodes) {
      node.all_gpus = 0xff;
      node.free_gpus = 0xff;
      node.spec.ready = true;
    }
    st.node_runs.rebuild(std::vector<std::uint64_t>(count, 0xff));
    for (int op = 0; op < 3000; ++op) {
      const NodeId n = static_cast<NodeId>(rng() % count);
      NodeState& node = st.nodes[n];
      const std::uint64_t gpu = std::uint64_t{1} << (rng() % 8);
      // Mostly takes, so that runs and blocks fill up and their most falls.
      if ((node.free_gpus & gpu) != 0 && rng() % 3 != 0)
        st.takeOnNode(n, ResourceVector{}, gpu, 0);
      else if ((node.free_gpus & gpu) == 0)
        st.releaseOnNode(n, ResourceVector{}, gpu, 0);
      const NodeRuns& runs = st.node_runs;
      REQUIRE(runs.runs() == (count + NodeRuns::kNodeChunk - 1) / NodeRuns::kNodeChunk);
      for (std::size_t c = 0; c < runs.runs(); ++c) {
        std::int32_t most = 0;
        for (NodeId m = static_cast<NodeId>(c * NodeRuns::kNodeChunk);
             m < count && m < (c + 1) * NodeRuns::kNodeChunk; ++m)
          most = std::max(most, static_cast<std::int32_t>(std::popcount(st.nodes[m].free_gpus)));
        INFO("world " << world << ", op " << op << ", run " << c);
        REQUIRE(runs.runMost(c) == most);
      }
      for (std::size_t b = 0; b < runs.blocks(); ++b) {
        std::int32_t most = 0;
        for (std::size_t c = b * NodeRuns::kChunksPerBlock;
             c < runs.runs() && c < (b + 1) * NodeRuns::kChunksPerBlock; ++c)
          most = std::max(most, runs.runMost(c));
        INFO("world " << world << ", op " << op << ", block " << b);
        REQUIRE(runs.blockMost(b) == most);
      }
    }
  }
}

}  // namespace
}  // namespace troupe::queueing
