// EngineState::skipFullChunks: a placement scan skips blocks and runs of node ids whose
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

std::size_t oneByOne(const EngineState& st, const std::vector<NodeId>& eligible, std::size_t i,
                     std::int64_t gpus) {
  while (i < eligible.size() && st.chunkCannotHold(eligible[i], gpus)) ++i;
  return i;
}

TEST_CASE("skipping full runs of nodes lands where a scan of every node would",
          "[queueing][placement]") {
  std::mt19937 rng(20261123);
  for (int world = 0; world < 2000; ++world) {
    EngineState st{Policy{}};
    // Up to 12 blocks; every other world has whole blocks of runs with few free GPUs, the
    // blocks a scan over a nearly full cluster skips at once.
    const auto nodes = static_cast<NodeId>(1 + rng() % (12 * EngineState::kBlockNodes));
    st.chunk_free_gpus.resize((nodes + EngineState::kNodeChunk - 1) / EngineState::kNodeChunk);
    std::uint32_t block_low = 9;
    for (std::size_t c = 0; c < st.chunk_free_gpus.size(); ++c) {
      if (c % EngineState::kChunksPerBlock == 0) block_low = world % 2 == 0 ? 9 : 1 + rng() % 9;
      st.chunk_free_gpus[c] = static_cast<std::int32_t>(rng() % block_low);
    }
    st.refreshBlocks();
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
      REQUIRE(st.skipFullChunks(eligible, start, gpus) == oneByOne(st, eligible, start, gpus));
    }
  }
}

TEST_CASE("taking and releasing GPUs keeps every run's and block's most exact",
          "[queueing][placement]") {
  std::mt19937 rng(20261125);
  for (int world = 0; world < 20; ++world) {
    EngineState st{Policy{}};
    const auto count = static_cast<NodeId>(1 + rng() % (3 * EngineState::kBlockNodes));
    st.nodes.resize(count);
    for (auto& node : st.nodes) {
      node.all_gpus = 0xff;
      node.free_gpus = 0xff;
      node.spec.ready = true;
    }
    st.chunk_free_gpus.assign((count + EngineState::kNodeChunk - 1) / EngineState::kNodeChunk, 0);
    for (std::size_t c = 0; c < st.chunk_free_gpus.size(); ++c) st.refreshChunk(c);
    st.refreshBlocks();
    for (int op = 0; op < 3000; ++op) {
      const NodeId n = static_cast<NodeId>(rng() % count);
      NodeState& node = st.nodes[n];
      const std::uint64_t gpu = std::uint64_t{1} << (rng() % 8);
      // Mostly takes, so that runs and blocks fill up and their most falls.
      if ((node.free_gpus & gpu) != 0 && rng() % 3 != 0)
        st.takeOnNode(n, ResourceVector{}, gpu);
      else if ((node.free_gpus & gpu) == 0)
        st.releaseOnNode(n, ResourceVector{}, gpu);
      for (std::size_t c = 0; c < st.chunk_free_gpus.size(); ++c) {
        std::int32_t most = 0;
        for (NodeId m = static_cast<NodeId>(c * EngineState::kNodeChunk);
             m < count && m < (c + 1) * EngineState::kNodeChunk; ++m)
          most = std::max(most, static_cast<std::int32_t>(std::popcount(st.nodes[m].free_gpus)));
        INFO("world " << world << ", op " << op << ", run " << c);
        REQUIRE(st.chunk_free_gpus[c] == most);
      }
      for (std::size_t b = 0; b < st.block_free_gpus.size(); ++b) {
        std::int32_t most = 0;
        for (std::size_t c = b * EngineState::kChunksPerBlock;
             c < st.chunk_free_gpus.size() && c < (b + 1) * EngineState::kChunksPerBlock; ++c)
          most = std::max(most, st.chunk_free_gpus[c]);
        INFO("world " << world << ", op " << op << ", block " << b);
        REQUIRE(st.block_free_gpus[b] == most);
      }
    }
  }
}

}  // namespace
}  // namespace troupe::queueing
