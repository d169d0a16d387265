#include <catch2/catch.hpp>

#include "cli/pending_advice.h"

using namespace troupe::cli;
using json = nlohmann::json;

namespace {

json pending(const std::string& reason, json numbers) {
  json p = {{"reason", reason}, {"message", reason + ": ..."}, {"queue", "team-a"}};
  p.update(numbers);
  return p;
}

}  // namespace

TEST_CASE("why a gang waits, with its arithmetic and the ways out", "[cli][why]") {
  struct Case {
    std::string name;
    json pending;
    std::string want_arithmetic;
    std::vector<std::string> want_remedies_containing;
  };
  const json at_limit = {{"request", {{"nvidia.com/gpu", "8"}, {"cpu", "4"}}},
                         {"allocated", {{"nvidia.com/gpu", "24"}}},
                         {"guaranteed", {{"nvidia.com/gpu", "16"}}},
                         {"fairShare", {{"nvidia.com/gpu", "24"}}},
                         {"limit", {{"nvidia.com/gpu", "24"}}}};
  std::vector<Case> cases = {
      // 24 held + 8 asked = 32, past the limit of 24 by 8.
      {"at the queue's limit",
       pending("QueueAtLimit", at_limit),
       "allocated + request = 24 + 8 = 32 > limit 24",
       {"8 nvidia.com/gpu of queue team-a's admitted gangs finishing",
        "a limit for nvidia.com/gpu of at least 32 on queue team-a"}},
      // 10 held + 8 asked = 18 past a fair share of 12; the guarantee of 16 is short of 18.
      {"over its fair share",
       pending("OverFairShare", {{"request", {{"nvidia.com/gpu", "8"}}},
                                 {"allocated", {{"nvidia.com/gpu", "10"}}},
                                 {"guaranteed", {{"nvidia.com/gpu", "16"}}},
                                 {"fairShare", {{"nvidia.com/gpu", "12"}}}}),
       "allocated + request = 10 + 8 = 18 > fair share 12",
       {"coming free without preemption", "a guarantee for nvidia.com/gpu of at least 18",
        "overQuotaWeight"}},
      {"no room on the nodes",
       pending("NoPlacement", at_limit),
       "",
       {"kubectl troupe top", "a lower spec.minReplicas"}},
      {"no such queue", pending("QueueNotFound", json::object()), "", {"spec.queue"}},
      {"starving, capacity held for it", pending("Reserved", json::object()), "", {"nothing"}},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      auto numbers = pendingNumbers(tc.pending);
      CHECK(pendingArithmetic(numbers) == tc.want_arithmetic);
      auto remedies = pendingRemedies(numbers);
      std::string all;
      for (const auto& r : remedies) all += r + "\n";
      for (const auto& want : tc.want_remedies_containing) CHECK_THAT(all, Catch::Contains(want));
    }
  }
}

TEST_CASE("the queue numbers are read in the gang's dominant resource", "[cli][why]") {
  auto n = pendingNumbers({{"reason", "QueueAtLimit"},
                           {"request", {{"cpu", "4"}, {"memory", "8Gi"}}},
                           {"allocated", {{"cpu", "60"}}},
                           {"limit", {{"cpu", "62"}}}});
  CHECK(n.resource == "cpu");
  CHECK(n.request == 4);
  CHECK_FALSE(n.guaranteed);
  CHECK(pendingArithmetic(n) == "allocated + request = 60 + 4 = 64 > limit 62");
}

TEST_CASE("the limit that binds may be an ancestor's: its arithmetic and the ways out",
          "[cli][why]") {
  const json limited_by = {{"queue", "org"},  {"resource", "nvidia.com/gpu"},
                           {"holds", "127"},  {"keptUnlent", "0"},
                           {"request", "16"}, {"limit", "128"}};
  auto n = pendingNumbers({{"reason", "QueueAtLimit"},
                           {"queue", "team-a"},
                           {"request", {{"nvidia.com/gpu", "16"}}},
                           {"allocated", {{"nvidia.com/gpu", "49"}}},
                           {"limit", {{"nvidia.com/gpu", "96"}}},
                           {"limitedBy", limited_by}});
  // team-a's own 49 + 16 = 65 is within its 96: org's 127 + 16 = 143 is not.
  CHECK(pendingArithmetic(n) == "org: holds + request = 127 + 16 = 143 > limit 128");
  std::string all;
  for (const auto& r : pendingRemedies(n)) all += r + "\n";
  CHECK_THAT(all, Catch::Contains("15 nvidia.com/gpu of queue org's admitted gangs finishing"));
  CHECK_THAT(all, Catch::Contains("a limit for nvidia.com/gpu of at least 143 on queue org"));

  auto never = pendingNumbers({{"reason", "Inadmissible"},
                               {"queue", "team-a"},
                               {"limitedBy",
                                {{"queue", "team-a"},
                                 {"resource", "nvidia.com/gpu"},
                                 {"holds", "0"},
                                 {"keptUnlent", "0"},
                                 {"request", "104"},
                                 {"limit", "96"}}}});
  CHECK(pendingArithmetic(never) == "team-a: holds + request = 0 + 104 = 104 > limit 96");
  all.clear();
  for (const auto& r : pendingRemedies(never)) all += r + "\n";
  CHECK_THAT(all, Catch::Contains("a limit for nvidia.com/gpu of at least 104 on queue team-a"));
}
