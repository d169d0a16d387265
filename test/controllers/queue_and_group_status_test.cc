#include <catch2/catch.hpp>

#include "controllers/object_json.h"
#include "controllers/pod_group_status.h"
#include "controllers/queue_status.h"
#include "controllers/queue_tree.h"
#include "test/controllers/builders.h"

using namespace troupe::controllers;
using namespace troupe::controllers::testing;

TEST_CASE("the queue tree is checked for unknown parents, cycles and guarantees",
          "[controllers][queue-tree]") {
  struct Case {
    std::string name;
    std::vector<Json> queues;
    std::map<std::string, std::string> want_unusable;  // queue -> its reason
  };
  std::vector<Case> cases = {
      {"a well-formed tree",
       {queue("org").guaranteedGpus(16), queue("a").parent("org").guaranteedGpus(8),
        queue("b").parent("org").guaranteedGpus(8)},
       {}},
      {"an unknown parent", {queue("a").parent("missing")}, {{"a", "ParentNotFound"}}},
      {"a cycle of two",
       {queue("a").parent("b"), queue("b").parent("a")},
       {{"a", "Cycle"}, {"b", "Cycle"}}},
      // 8 fits in 12, 8 + 8 = 16 does not: b, made last, breaks it; org and a go on.
      {"children guaranteed more than the parent",
       {queue("org").guaranteedGpus(12),
        queue("a").parent("org").guaranteedGpus(8).created("2026-01-01T00:00:01Z"),
        queue("b").parent("org").guaranteedGpus(8).created("2026-01-01T00:00:02Z"),
        queue("b-child").parent("b")},
       {{"b", "GuaranteeExceedsParent"}, {"b-child", "ParentNotReady"}}},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      auto forest = queueForest(tc.queues);
      REQUIRE(forest.problems().size() == tc.want_unusable.size());
      for (const auto& [q, reason] : tc.want_unusable) {
        REQUIRE(forest.problem(q) != nullptr);
        CHECK(forest.problem(q)->reason == reason);
      }
    }
  }
}

TEST_CASE("a queue that cannot take jobs says why in its Ready condition", "[controllers][queue]") {
  troupe::queueing::ResourceNames names;
  auto forest =
      queueForest({queue("org").guaranteedGpus(4), queue("extra").parent("org").guaranteedGpus(8)});
  Json q = queue("extra").parent("org").guaranteedGpus(8);
  q["status"] = {{"conditions", {{{"type", "Valid"}, {"status", "True"}}}}};
  auto status = renderQueueStatus(q, std::nullopt, names, {}, forest.problem("extra"), 1767225600);
  REQUIRE(status["conditions"].size() == 1);  // the old Valid condition is gone
  const Json& ready = status["conditions"][0];
  CHECK(ready["type"] == "Ready");
  CHECK(ready["status"] == "False");
  CHECK(ready["reason"] == "GuaranteeExceedsParent");
  CHECK(ready["message"] ==
        "spec.resources[nvidia.com/gpu].guaranteed: Invalid value: \"8\": the guarantees of "
        "org's children would add up to 8 nvidia.com/gpu, more than org's 4");
}

TEST_CASE("a queue's status shows allocation, fair share and counts", "[controllers][queue]") {
  troupe::queueing::ResourceNames names;
  troupe::queueing::QueueStatus computed;
  computed.queue = "team-a";
  computed.allocated = troupe::queueing::ResourceVector::of(8, 16000, 0);
  computed.fair_share = troupe::queueing::ResourceVector::of(12, 0, 0);
  auto status =
      renderQueueStatus(queue("team-a"), computed, names, {2, 1, 3, 4}, nullptr, 1767225600);
  CHECK(status["allocated"]["nvidia.com/gpu"] == "8");
  CHECK(status["allocated"]["cpu"] == "16");
  CHECK(status["fairShare"]["nvidia.com/gpu"] == "12");
  CHECK(status["pending"] == 2);
  CHECK(status["admitted"] == 1);
  CHECK(status["running"] == 3);
  CHECK(status["inadmissible"] == 4);
  CHECK(status["conditions"][0]["type"] == "Ready");
  CHECK(status["conditions"][0]["status"] == "True");
  // Rendering again at a later time changes nothing: status is written only on change.
  Json q = queue("team-a");
  q["status"] = status;
  CHECK(renderQueueStatus(q, computed, names, {2, 1, 3, 4}, nullptr, 1767229999) == status);
}

TEST_CASE("a PodGroup's phase follows its pods and its schedule timeout",
          "[controllers][pod-group]") {
  struct Case {
    std::string name;
    std::vector<Json> pods;
    std::int64_t now;
    std::string want_phase;
  };
  std::vector<Case> cases = {
      {"waiting", {pod("ml", "p0").group("g"), pod("ml", "p1").group("g")}, kT0 + 10, "Pending"},
      {"waiting past the timeout fails",
       {pod("ml", "p0").group("g"), pod("ml", "p1").group("g")},
       kT0 + 60,
       "Failed"},
      {"bound",
       {pod("ml", "p0").boundTo("n1"), pod("ml", "p1").boundTo("n1")},
       kT0 + 60,
       "Admitted"},
      {"running",
       {pod("ml", "p0").boundTo("n1").phase("Running"),
        pod("ml", "p1").boundTo("n1").phase("Running")},
       kT0 + 60,
       "Running"},
      {"done",
       {pod("ml", "p0").boundTo("n1").phase("Succeeded"),
        pod("ml", "p1").boundTo("n1").phase("Succeeded")},
       kT0 + 60,
       "Succeeded"},
      {"a member failed and the rest finished",
       {pod("ml", "p0").boundTo("n1").phase("Failed"),
        pod("ml", "p1").boundTo("n1").phase("Succeeded")},
       kT0 + 60,
       "Failed"},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      auto status =
          computePodGroupStatus(podGroup("ml", "g").minMember(2).timeout(30), tc.pods, tc.now);
      CHECK(status["phase"] == tc.want_phase);
    }
  }
}
