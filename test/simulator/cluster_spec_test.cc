#include "simulator/cluster_spec.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

namespace troupe::simulator {
namespace {

TEST_CASE("a node pool expands into named nodes in racks and blocks", "[simulator][cluster]") {
  auto spec = parseClusterSpec(R"(
nodePools:
  - {name: gpu, count: 10, gpusPerNode: 8, nodesPerRack: 4, racksPerBlock: 2,
     gpuTopology: {nvlinkDomainSize: 4, numaNodes: 2}}
queues:
  - {name: a, guaranteed: 40}
  - {name: b}
)");
  REQUIRE(spec.ok());
  REQUIRE(spec->nodes.size() == 10);
  CHECK(spec->totalGpus() == 80);
  // node 9: rack 9/4 = 2, block 2/2 = 1.
  CHECK(spec->nodes[9].name == "gpu-00009");
  CHECK(spec->nodes[9].rack == "gpu-rack-0002");
  CHECK(spec->nodes[9].block == "gpu-block-001");
  CHECK(spec->nodes[0].nvlink_domain_size == 4);
  CHECK(spec->queues[1].guaranteed_gpus == 0);
  CHECK_FALSE(spec->queues[1].limit_gpus.has_value());
  CHECK(spec->queues[1].over_quota_weight == 1);
}

TEST_CASE("bad cluster files are errors naming the field", "[simulator][cluster]") {
  struct Case {
    std::string name;
    std::string yaml;
    std::string want_field;
  };
  std::vector<Case> cases = {
      {"no nodes", "queues: [{name: a}]", "nodes"},
      {"no queues", "nodes: [{name: n, gpus: 8}]", "queues"},
      {"a typo in a field", "nodes: [{name: n, gpu: 8}]\nqueues: [{name: a}]", "nodes[0].gpu"},
      {"negative GPUs", "nodes: [{name: n, gpus: -8}]\nqueues: [{name: a}]", "nodes[0].gpus"},
      {"NVLink islands that do not divide the GPUs",
       "nodes: [{name: n, gpus: 8, gpuTopology: {nvlinkDomainSize: 3}}]\nqueues: [{name: a}]",
       "nodes[0].gpuTopology.nvlinkDomainSize"},
      {"a limit under the guarantee",
       "nodes: [{name: n, gpus: 8}]\nqueues: [{name: a, guaranteed: 8, limit: 4}]",
       "queues[0].limit"},
      {"an unknown parent", "nodes: [{name: n, gpus: 8}]\nqueues: [{name: a, parent: z}]",
       "queues[0].parent"},
      {"children guaranteed more than their parent",
       "nodes: [{name: n, gpus: 8}]\nqueues: [{name: p, guaranteed: 4}, {name: a, parent: p, "
       "guaranteed: 8}]",
       "queues[0].guaranteed"},
      {"a duplicate queue", "nodes: [{name: n, gpus: 8}]\nqueues: [{name: a}, {name: a}]",
       "queues[1].name"},
      {"a default queue that is not a leaf",
       "nodes: [{name: n, gpus: 8}]\nqueues: [{name: p}, {name: a, parent: p}]\n"
       "defaultQueue: p",
       "defaultQueue"},
      {"not YAML at all", "nodes: [", ""},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      auto spec = parseClusterSpec(tc.yaml);
      REQUIRE_FALSE(spec.ok());
      CHECK(spec.error().field_path == tc.want_field);
    }
  }
}

TEST_CASE("the shipped Philly cluster has 352 nodes and guarantees that fill it",
          "[simulator][cluster]") {
  auto spec = readClusterSpec(std::string(TROUPE_SOURCE_DIR) + "/examples/sim/philly-cluster.yaml");
  REQUIRE(spec.ok());
  CHECK(spec->nodes.size() == 352);
  CHECK(spec->totalGpus() == 2816);
  int64_t leaf_guarantees = 0;
  for (const auto& q : spec->queues) {
    if (spec->isLeaf(q.name)) leaf_guarantees += q.guaranteed_gpus;
  }
  CHECK(leaf_guarantees == 2816);
  CHECK(spec->default_queue == "default");
}

}  // namespace
}  // namespace troupe::simulator
