#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "apiserver/handlers/yaml_json.h"
#include "kubelet/demo_cluster.h"

using troupe::kubelet::demoClusterNodes;
using troupe::kubelet::DemoClusterShape;
using troupe::kubelet::kA100Product;
using troupe::kubelet::kH100Product;

namespace {

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("the built-in cluster is examples/cluster.yaml node for node",
          "[kubelet][demo-cluster]") {
  auto file = troupe::apiserver::yamlDocumentsToJson(
      readFile(std::string(TROUPE_SOURCE_DIR) + "/examples/cluster.yaml"));
  REQUIRE(file);
  auto built = demoClusterNodes(DemoClusterShape{});
  REQUIRE(built);
  // 4 racks x 4 nodes x 8 GPUs: the file documents what `troupe serve` makes by default.
  REQUIRE(built->size() == file->size());
  for (std::size_t i = 0; i < file->size(); ++i) {
    INFO((*file)[i]["metadata"]["name"]);
    CHECK((*built)[i] == (*file)[i]);
  }
}

TEST_CASE("the built-in cluster spreads nodes over racks as evenly as they go",
          "[kubelet][demo-cluster]") {
  struct Case {
    std::string name;
    DemoClusterShape shape;
    std::vector<std::string> want_racks;  // each node's rack, in order
    std::vector<std::string> want_names;  // the first and last node
  };
  std::vector<Case> cases = {
      {"nine nodes over four racks: 3, 2, 2, 2",
       {9, 8, 4},
       {"rack-1", "rack-1", "rack-1", "rack-2", "rack-2", "rack-3", "rack-3", "rack-4", "rack-4"},
       {"gpu-r1-n1", "gpu-r4-n2"}},
      {"one rack holds every node",
       {3, 4, 1},
       {"rack-1", "rack-1", "rack-1"},
       {"gpu-r1-n1", "gpu-r1-n3"}},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      auto nodes = demoClusterNodes(tc.shape);
      REQUIRE(nodes);
      REQUIRE(nodes->size() == tc.want_racks.size());
      for (std::size_t i = 0; i < nodes->size(); ++i)
        CHECK((*nodes)[i]["metadata"]["labels"]["troupe.dev/rack"] == tc.want_racks[i]);
      CHECK(nodes->front()["metadata"]["name"] == tc.want_names.front());
      CHECK(nodes->back()["metadata"]["name"] == tc.want_names.back());
    }
  }
}

TEST_CASE("the built-in cluster's first half of racks has H100s, the rest A100s",
          "[kubelet][demo-cluster]") {
  struct Case {
    std::string name;
    DemoClusterShape shape;
    std::vector<std::string> want_products;  // each node's nvidia.com/gpu.product
  };
  const std::string h100 = kH100Product, a100 = kA100Product;
  std::vector<Case> cases = {
      {"two racks: one of each", {4, 8, 2}, {h100, h100, a100, a100}},
      // Three racks: the first two (3 / 2, rounded up) are H100s.
      {"three racks: two of H100s", {3, 8, 3}, {h100, h100, a100}},
      {"one rack: all H100s", {2, 8, 1}, {h100, h100}},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      auto nodes = demoClusterNodes(tc.shape);
      REQUIRE(nodes);
      REQUIRE(nodes->size() == tc.want_products.size());
      for (std::size_t i = 0; i < nodes->size(); ++i)
        CHECK((*nodes)[i]["metadata"]["labels"]["nvidia.com/gpu.product"] == tc.want_products[i]);
    }
  }
}

TEST_CASE("a node's GPUs form two NVLink islands when their number is even, else one",
          "[kubelet][demo-cluster]") {
  auto topology = [](int gpus) {
    auto nodes = demoClusterNodes({1, gpus, 1});
    REQUIRE(nodes);
    return (*nodes)[0]["metadata"]["annotations"]["troupe.dev/gpu-topology"].get<std::string>();
  };
  CHECK(topology(4) == R"({"nvlinkIslands":[[0,1],[2,3]],"numa":[[0,1],[2,3]]})");
  CHECK(topology(3) == R"({"nvlinkIslands":[[0,1,2]],"numa":[[0,1,2]]})");
  // A node without GPUs has neither the resource nor the annotation.
  auto cpu_only = demoClusterNodes({1, 0, 1});
  REQUIRE(cpu_only);
  CHECK_FALSE((*cpu_only)[0]["status"]["allocatable"].contains("nvidia.com/gpu"));
  CHECK_FALSE((*cpu_only)[0]["metadata"].contains("annotations"));
}

TEST_CASE("a cluster size out of range names the flag and its rule", "[kubelet][demo-cluster]") {
  struct Case {
    std::string name;
    DemoClusterShape shape;
    std::string want;
  };
  std::vector<Case> cases = {
      {"negative nodes", {-1, 8, 1}, "--nodes: Invalid value: -1: must be from 0 to 10000"},
      {"too many GPUs",
       {4, 2000, 1},
       "--gpus-per-node: Invalid value: 2000: must be from 0 to 1024"},
      {"more racks than nodes",
       {2, 8, 3},
       "--racks: Invalid value: 3: must be from 1 to the number of nodes (2)"},
      {"no rack",
       {2, 8, 0},
       "--racks: Invalid value: 0: must be from 1 to the number of nodes (2)"},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      auto nodes = demoClusterNodes(tc.shape);
      REQUIRE_FALSE(nodes);
      CHECK(nodes.error().describe() == tc.want);
    }
  }
  // No nodes at all is a cluster too (the API server alone).
  auto none = demoClusterNodes({0, 8, 4});
  REQUIRE(none);
  CHECK(none->empty());
}
