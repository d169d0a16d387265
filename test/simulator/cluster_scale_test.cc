#include "simulator/cluster_scale.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

namespace troupe::simulator {
namespace {

ClusterSpec clusterOf(const std::string& yaml) {
  auto spec = parseClusterSpec(yaml);
  REQUIRE(spec.ok());
  return std::move(spec).value();
}

ClusterSpec scaled(const ClusterSpec& cluster, const char* scale) {
  auto factor = parseClusterScale(scale, "--scale");
  REQUIRE(factor.ok());
  auto out = scaleCluster(cluster, *factor, "--scale");
  REQUIRE(out.ok());
  return std::move(out).value();
}

TEST_CASE("a scale is read as an exact, reduced fraction", "[simulator][scale]") {
  struct Case {
    const char* text;
    int64_t want_numerator;
    int64_t want_denominator;
    const char* want_str;
  };
  std::vector<Case> cases = {{"1/6", 1, 6, "1/6"}, {"0.25", 1, 4, "1/4"}, {"2", 2, 1, "2"},
                             {"3/6", 1, 2, "1/2"}, {".5", 1, 2, "1/2"},   {"1.5", 3, 2, "3/2"},
                             {"10/10", 1, 1, "1"}};
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.text) {
      auto scale = parseClusterScale(tc.text, "--scale");
      REQUIRE(scale.ok());
      CHECK(scale->numerator == tc.want_numerator);
      CHECK(scale->denominator == tc.want_denominator);
      CHECK(scale->str() == tc.want_str);
    }
  }
  for (const char* bad : {"0", "-1", "1/0", "0/3", "abc", "1/", "/2", "1.", "0.1234567", "1e-2",
                          "2000000", "1/2000000"}) {
    DYNAMIC_SECTION("bad: " << bad) {
      auto scale = parseClusterScale(bad, "--scale");
      REQUIRE_FALSE(scale.ok());
      CHECK(scale.error().field_path == "--scale");
    }
  }
}

TEST_CASE("a quarter of the shipped Philly cluster is the shipped quarter cluster",
          "[simulator][scale]") {
  auto full = readClusterSpec(std::string(TROUPE_SOURCE_DIR) + "/examples/sim/philly-cluster.yaml");
  REQUIRE(full.ok());
  auto quarter =
      readClusterSpec(std::string(TROUPE_SOURCE_DIR) + "/examples/sim/philly-cluster-quarter.yaml");
  REQUIRE(quarter.ok());
  ClusterSpec got = scaled(*full, "1/4");
  // 352 / 4 = 88 nodes; every guarantee / 4 exactly (they are multiples of 4).
  REQUIRE(got.nodes.size() == quarter->nodes.size());
  for (size_t i = 0; i < got.nodes.size(); ++i) {
    INFO("node " << i);
    CHECK(got.nodes[i].name == quarter->nodes[i].name);
    CHECK(got.nodes[i].rack == quarter->nodes[i].rack);
    CHECK(got.nodes[i].block == quarter->nodes[i].block);
    CHECK(got.nodes[i].gpus == quarter->nodes[i].gpus);
    CHECK(got.nodes[i].nvlink_domain_size == quarter->nodes[i].nvlink_domain_size);
    CHECK(got.nodes[i].numa_nodes == quarter->nodes[i].numa_nodes);
  }
  REQUIRE(got.queues.size() == quarter->queues.size());
  for (size_t i = 0; i < got.queues.size(); ++i) {
    INFO("queue " << got.queues[i].name);
    CHECK(got.queues[i].name == quarter->queues[i].name);
    CHECK(got.queues[i].parent == quarter->queues[i].parent);
    CHECK(got.queues[i].guaranteed_gpus == quarter->queues[i].guaranteed_gpus);
  }
  CHECK(got.default_queue == "default");
}

TEST_CASE("node counts round to the nearest, guarantees and limits round down",
          "[simulator][scale]") {
  ClusterSpec cluster = clusterOf(R"(
nodePools:
  - {name: a, count: 352, gpusPerNode: 8, nodesPerRack: 32, racksPerBlock: 4}
  - {name: b, count: 3, gpusPerNode: 4}
  - {name: c, count: 1, gpusPerNode: 8}
queues:
  - {name: root, guaranteed: 2816}
  - {name: x, parent: root, guaranteed: 512, limit: 1000}
  - {name: y, parent: root, guaranteed: 2304}
)");
  struct Case {
    const char* scale;
    size_t want_a, want_b, want_c;
    int64_t want_root, want_x, want_x_limit, want_y;
  };
  // a: 352/6 = 58.67 -> 59; 352/10 = 35.2 -> 35; b: 3/2 = 1.5 -> 2 (halves up);
  // c: 1/10 -> at least 1. x: 512/6 = 85.3 -> 85, limit 1000/6 = 166.7 -> 166;
  // y: 2304/6 = 384; root 2816/6 = 469.3 -> 469 >= 85 + 384.
  std::vector<Case> cases = {{"1/6", 59, 1, 1, 469, 85, 166, 384},
                             {"1/10", 35, 1, 1, 281, 51, 100, 230},
                             {"1/2", 176, 2, 1, 1408, 256, 500, 1152},
                             {"2", 704, 6, 2, 5632, 1024, 2000, 4608}};
  for (const auto& tc : cases) {
    DYNAMIC_SECTION("scale " << tc.scale) {
      ClusterSpec got = scaled(cluster, tc.scale);
      REQUIRE(got.pools.size() == 3);
      CHECK(got.pools[0].count == static_cast<int64_t>(tc.want_a));
      CHECK(got.pools[1].count == static_cast<int64_t>(tc.want_b));
      CHECK(got.pools[2].count == static_cast<int64_t>(tc.want_c));
      CHECK(got.nodes.size() == tc.want_a + tc.want_b + tc.want_c);
      CHECK(got.queues[0].guaranteed_gpus == tc.want_root);
      CHECK(got.queues[1].guaranteed_gpus == tc.want_x);
      CHECK(got.queues[1].limit_gpus == tc.want_x_limit);
      CHECK(got.queues[2].guaranteed_gpus == tc.want_y);
      CHECK_FALSE(got.queues[2].limit_gpus.has_value());
    }
  }
  // Grown, the pool keeps its racks of 32 and blocks of 4 racks: node 703 is in rack
  // 703 / 32 = 21, block 21 / 4 = 5.
  ClusterSpec twice = scaled(cluster, "2");
  CHECK(twice.nodes[703].name == "a-00703");
  CHECK(twice.nodes[703].rack == "a-rack-0021");
  CHECK(twice.nodes[703].block == "a-block-005");
}

TEST_CASE("nodes listed one by one cannot be scaled", "[simulator][scale]") {
  ClusterSpec cluster = clusterOf(
      "nodes: [{name: a, gpus: 8}, {name: b, gpus: 8}]\n"
      "queues: [{name: q, guaranteed: 16}]");
  auto half = scaleCluster(cluster, ClusterScale{1, 2}, "--scale");
  REQUIRE_FALSE(half.ok());
  CHECK(half.error().field_path == "--scale");
  auto same = scaleCluster(cluster, ClusterScale{1, 1}, "--scale");
  REQUIRE(same.ok());
  CHECK(same->nodes.size() == 2);
}

}  // namespace
}  // namespace troupe::simulator
