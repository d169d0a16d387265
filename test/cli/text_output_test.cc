#include <catch2/catch.hpp>

#include "cli/display_format.h"
#include "cli/text_table.h"
#include "cli/usage_bar.h"

using namespace troupe::cli;

TEST_CASE("a usage bar draws held, borrowed, idle and room up to the limit", "[cli][bar]") {
  struct Case {
    std::string name;
    QueueQuota quota;
    std::string want;
  };
  // 8 cells over 32 GPUs: 4 GPUs a cell.
  std::vector<Case> cases = {
      {"within its guarantee", {16, 24.0, std::nullopt, 0, 8}, "[██░░··  ]"},
      {"borrowing above it", {16, 24.0, std::nullopt, 0, 24}, "[████▓▓  ]"},
      {"no limit of its own", {16, std::nullopt, std::nullopt, 0, 0}, "[░░░░····]"},
  };
  for (const auto& tc : cases) DYNAMIC_SECTION(tc.name) {
      CHECK(usageBar(tc.quota, 32, {8, false}) == tc.want);
    }
  // Colour codes do not count as width.
  CHECK(displayWidth(usageBar({16, 24.0, std::nullopt, 0, 24}, 32, {8, true})) == 10);
}

TEST_CASE("tables align on characters, not bytes", "[cli][table]") {
  TextTable t({"QUEUE", "USE"});
  t.add({"├─ team-a", "[██]"});
  t.add({"org", "[]"});
  CHECK(t.render() == "QUEUE      USE\n├─ team-a  [██]\norg        []\n");
}

TEST_CASE("amounts and durations as people read them", "[cli][format]") {
  CHECK(amountText("nvidia.com/gpu", 8) == "8");
  CHECK(amountText("cpu", 0.5) == "0.5");
  CHECK(amountText("memory", 64.0 * 1024 * 1024 * 1024) == "64Gi");
  CHECK(resourceLabel("nvidia.com/gpu") == "GPU");
  CHECK(durationText(45) == "45s");
  CHECK(durationText(192) == "3m12s");
  CHECK(durationText(7500) == "2h5m");
  CHECK(durationText(97200) == "1d3h");
  CHECK(durationText(-1) == "-");
}
