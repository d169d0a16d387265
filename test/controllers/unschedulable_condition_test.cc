#include <catch2/catch.hpp>

#include "controllers/object_json.h"
#include "controllers/unschedulable_condition.h"

// A waiting lone pod says why in its PodScheduled condition, as kube-scheduler's pods do.
namespace troupe::controllers {
namespace {

constexpr std::int64_t kNow = 1'700'000'000;

TEST_CASE("a waiting pod's PodScheduled condition turns False with Troupe's sentence",
          "[controllers][unschedulable-condition]") {
  const Json fresh = {{"metadata", {{"name", "p"}}}, {"status", {{"phase", "Pending"}}}};
  auto patch = unschedulablePatch(fresh, "queue team-a is at its limit", kNow);
  REQUIRE(patch);
  REQUIRE((*patch)["conditions"].size() == 1);
  const Json& c = (*patch)["conditions"][0];
  CHECK(c["type"] == "PodScheduled");
  CHECK(c["status"] == "False");
  CHECK(c["reason"] == "Unschedulable");
  CHECK(c["message"] == "queue team-a is at its limit");
  CHECK(c["lastTransitionTime"] == formatTimestamp(kNow));
}

TEST_CASE("a pod that says so already is not written, a new sentence keeps the transition time",
          "[controllers][unschedulable-condition]") {
  const Json waiting = {
      {"status",
       {{"conditions", Json::array({{{"type", "DisruptionTarget"}, {"status", "True"}},
                                    {{"type", "PodScheduled"},
                                     {"status", "False"},
                                     {"reason", "Unschedulable"},
                                     {"message", "old"},
                                     {"lastTransitionTime", formatTimestamp(kNow - 60)}}})}}}};
  CHECK_FALSE(unschedulablePatch(waiting, "old", kNow));
  auto patch = unschedulablePatch(waiting, "new", kNow);
  REQUIRE(patch);
  // The merge patch replaces the list: the other condition goes back unchanged.
  REQUIRE((*patch)["conditions"].size() == 2);
  CHECK((*patch)["conditions"][0] == waiting["status"]["conditions"][0]);
  CHECK((*patch)["conditions"][1]["message"] == "new");
  CHECK((*patch)["conditions"][1]["lastTransitionTime"] == formatTimestamp(kNow - 60));
}

}  // namespace
}  // namespace troupe::controllers
