#include "simulator/node_list.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "simulator/cluster_scale.h"

namespace troupe::simulator {
namespace {

constexpr const char* kHeader = "sn,cpu_milli,memory_mib,gpu,model\n";

TEST_CASE("a node list becomes pools of identical nodes with their model, CPU and memory",
          "[simulator][node-list]") {
  const std::string text = std::string(kHeader) +
                           "n0,96000,393216,8,G2\n"
                           "n1,32000,262144,0,\n"
                           "n2,96000,393216,8,G2\n"
                           "n3,96000,393216,4,T4\n"
                           "n4,96000,393216,8,G2\n"
                           "n5,96000,393216,8,G2\n";
  auto cluster = parseNodeList(text, "nodes.csv");
  REQUIRE(cluster.ok());
  // Kinds in order of first appearance: 4 x (8 G2), 1 CPU-only, 1 x (4 T4).
  REQUIRE(cluster->pools.size() == 3);
  CHECK(cluster->pools[0].name == "g2-00");
  CHECK(cluster->pools[0].count == 4);
  CHECK(cluster->pools[1].name == "cpu-01");
  CHECK(cluster->pools[2].gpu_type == "T4");
  CHECK(cluster->nodes.size() == 6);
  CHECK(cluster->totalGpus() == 4 * 8 + 4);
  CHECK(cluster->nodes[0].gpu_type == "G2");
  CHECK(cluster->nodes[0].cpu_milli == 96000);
  CHECK(cluster->nodes[0].memory_mib == 393216);
  CHECK(cluster->simulatesCpuAndMemory());
  // One queue, without guarantee or limit, that every job goes to.
  REQUIRE(cluster->queues.size() == 1);
  CHECK(cluster->default_queue == kNodeListQueue);
  CHECK_FALSE(cluster->queues[0].limit_gpus.has_value());
  // A quarter: round(4/4) = 1 G2 node; the single ones stay at least 1.
  auto quarter = scaleCluster(*cluster, ClusterScale{1, 4}, "--scale");
  REQUIRE(quarter.ok());
  CHECK(quarter->nodes.size() == 3);
  CHECK(quarter->nodes[0].gpu_type == "G2");
}

TEST_CASE("bad node lists are errors naming the line and the column", "[simulator][node-list]") {
  struct Case {
    std::string name;
    std::string text;
    std::string want_field;
  };
  const std::vector<Case> cases = {
      {"no model column", "sn,cpu_milli,memory_mib,gpu\nn,1,1,1\n", "t.csv:1:model"},
      {"GPUs without a model", std::string(kHeader) + "n,1000,1024,2,\n", "t.csv:2:model"},
      {"too many GPUs", std::string(kHeader) + "n,1000,1024,65,A\n", "t.csv:2:gpu"},
      {"no CPU", std::string(kHeader) + "n,0,1024,1,A\n", "t.csv:2:cpu_milli"},
      {"a name twice", std::string(kHeader) + "n,1,1,1,A\nn,1,1,1,A\n", "t.csv:3:sn"},
      {"no nodes", kHeader, "t.csv"},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      auto cluster = parseNodeList(tc.text, "t.csv");
      REQUIRE_FALSE(cluster.ok());
      CHECK(cluster.error().field_path == tc.want_field);
    }
  }
}

}  // namespace
}  // namespace troupe::simulator
