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
