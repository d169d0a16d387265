#include <catch2/catch.hpp>

#include "api/gpu_topology.h"

namespace troupe::api {
namespace {

const std::string kField = "metadata.annotations[troupe.dev/gpu-topology]";

TEST_CASE("the gpu-topology annotation parses into NVLink islands and NUMA groups",
          "[api][gpu-topology]") {
  auto t = parseGpuTopology(
      R"({"nvlinkIslands":[[0,1,2,3],[4,5,6,7]],"numa":[[0,1,2,3],[4,5,6,7]]})", kField);
  REQUIRE(t.ok());
  CHECK(t->nvlink_islands == std::vector<std::vector<int>>{{0, 1, 2, 3}, {4, 5, 6, 7}});
  CHECK(t->numa.size() == 2);
  CHECK(formatGpuTopology(*t) ==
        R"({"nvlinkIslands":[[0,1,2,3],[4,5,6,7]],"numa":[[0,1,2,3],[4,5,6,7]]})");
}

TEST_CASE("a bad gpu-topology annotation is an error naming where it is wrong",
          "[api][gpu-topology]") {
  struct Case {
    std::string name;
    std::string input;
    std::string want_field;
  };
  std::vector<Case> cases = {
      {"not JSON", "{nvlink", kField},
      {"not an object", "[1,2]", kField},
      {"an unknown key", R"({"islands":[[0]]})", kField + ".islands"},
      {"islands not an array", R"({"nvlinkIslands":3})", kField + ".nvlinkIslands"},
      {"a negative GPU index", R"({"nvlinkIslands":[[0,-1]]})", kField + ".nvlinkIslands[0][1]"},
      {"a GPU in two islands", R"({"nvlinkIslands":[[0,1],[1,2]]})",
       kField + ".nvlinkIslands[1][0]"},
      {"a string index", R"({"numa":[["0"]]})", kField + ".numa[0][0]"},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      auto t = parseGpuTopology(tc.input, kField);
      REQUIRE_FALSE(t.ok());
      CHECK(t.error().field_path == tc.want_field);
    }
  }
}

}  // namespace
}  // namespace troupe::api
