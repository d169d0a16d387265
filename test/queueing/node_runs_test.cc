// EngineState::skipFullChunks: a placement scan skips runs of kNodeChunk node ids whose
// most free GPUs on one node are too few. It must land exactly where a scan of every
// eligible node, one by one, would: on the first node at or after the start whose run
// could hold a pod of that many GPUs.
#include <catch2/catch.hpp>

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
    const auto nodes = static_cast<NodeId>(1 + rng() % 300);
    st.chunk_free_gpus.resize((nodes + EngineState::kNodeChunk - 1) / EngineState::kNodeChunk);
    for (auto& most : st.chunk_free_gpus) most = static_cast<std::int32_t>(rng() % 9);
    // Eligible nodes: all of them, or a random subset (selectors, unusable nodes).
    std::vector<NodeId> eligible;
    const unsigned keep_percent = world % 3 == 0 ? 100 : 10 + rng() % 90;
    for (NodeId n = 0; n < nodes; ++n)
      if (rng() % 100 < keep_percent) eligible.push_back(n);
    const auto gpus = static_cast<std::int64_t>(rng() % 9);
    for (std::size_t start = 0; start <= eligible.size(); ++start) {
      INFO("world " << world << ", " << nodes << " nodes, " << eligible.size()
                    << " eligible, start " << start << ", " << gpus << " GPUs");
      REQUIRE(st.skipFullChunks(eligible, start, gpus) == oneByOne(st, eligible, start, gpus));
    }
  }
}

}  // namespace
}  // namespace troupe::queueing
