#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "kubelet/mig_nodes.h"

using namespace troupe::kubelet;

TEST_CASE("MIG nodes advertise their slices as extended resources and no whole GPU",
          "[kubelet][mig-nodes]") {
  auto nodes = migNodes(2);
  REQUIRE(nodes);
  REQUIRE(nodes->size() == 2);
  const nlohmann::json& second = (*nodes)[1];
  CHECK(second["metadata"]["name"] == "mig-n2");
  CHECK(second["metadata"]["labels"]["troupe.dev/rack"] == "mig-rack");
  // 8 GPUs, each one 3g.40gb and four 1g.10gb: 8 and 32.
  const auto& allocatable = second["status"]["allocatable"];
  CHECK(allocatable["nvidia.com/mig-3g.40gb"] == "8");
  CHECK(allocatable["nvidia.com/mig-1g.10gb"] == "32");
  CHECK_FALSE(allocatable.contains("nvidia.com/gpu"));
  CHECK(second["status"]["capacity"]["nvidia.com/mig-1g.10gb"] == "32");
  CHECK(migNodes(0)->empty());
}

TEST_CASE("a MIG node count out of range is refused, naming the flag and the rule",
          "[kubelet][mig-nodes]") {
  for (int count : {-1, 1001}) {
    auto nodes = migNodes(count);
    REQUIRE_FALSE(nodes);
    CHECK(nodes.error().describe() ==
          "--mig-nodes: Invalid value: " + std::to_string(count) + ": must be from 0 to 1000");
  }
}
