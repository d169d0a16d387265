#include <catch2/catch.hpp>

#include <map>

#include "controllers/action_plan.h"
#include "controllers/admission_recovery.h"
#include "controllers/cluster_snapshot.h"
#include "test/controllers/builders.h"

using namespace troupe::controllers;
using namespace troupe::controllers::testing;

namespace {

ClusterSnapshot twoGangs() {
  ApiObjects objects;
  objects.nodes = {node("n1"), node("n2")};
  objects.queues = {queue("team-a"), queue("team-b")};
  objects.pod_groups = {podGroup("ml", "victim").minMember(2),
                        podGroup("ml", "newcomer").minMember(2).queue("team-b")};
  objects.pods = {
      pod("ml", "victim-0").group("victim").index(0).gpus(8).boundTo("n1", "0,1,2,3,4,5,6,7"),
      pod("ml", "victim-1").group("victim").index(1).gpus(8).boundTo("n2", "0,1,2,3,4,5,6,7"),
      pod("ml", "newcomer-0").group("newcomer").index(0).gpus(8),
      pod("ml", "newcomer-1").group("newcomer").index(1).gpus(8)};
  return buildClusterSnapshot(objects, {});
}

}  // namespace

TEST_CASE("a preemption deletes every bound pod of the victim and names the preemptor",
          "[controllers][plan]") {
  auto cluster = twoGangs();
  troupe::queueing::Decisions d;
  d.preemptions.push_back(
      {"ml/victim", "team-a", "ml/newcomer", troupe::queueing::PreemptionReason::Reclaim});
  auto plan = planActions(d, cluster, 100);
  REQUIRE(plan.deletions.size() == 2);
  CHECK(plan.deletions[0].pod == "victim-0");
  CHECK(plan.deletions[0].uid == "uid-victim-0");
  CHECK(plan.deletions[0].reason == "Preempted");
  REQUIRE(plan.preempted.size() == 1);
  CHECK(plan.preempted[0].preemptor == "ml/newcomer");
  CHECK_THAT(plan.events[0].message, Catch::Contains("Preempted by ml/newcomer"));
  // Nothing is bound in this cycle: nothing waits.
  CHECK(plan.making_room.empty());
}

TEST_CASE("a preemptor taking two gangs is told once, and its admission once it binds",
          "[controllers][plan][events]") {
  ApiObjects objects;
  objects.nodes = {node("n1"), node("n2")};
  objects.queues = {queue("team-a"), queue("team-b")};
  objects.pod_groups = {podGroup("ml", "a1"), podGroup("ml", "a2"),
                        podGroup("ml", "newcomer").minMember(2).queue("team-b")};
  objects.pods = {pod("ml", "a1-0").group("a1").index(0).gpus(8).boundTo("n1", "0,1,2,3,4,5,6,7"),
                  pod("ml", "a2-0").group("a2").index(0).gpus(8).boundTo("n2", "0,1,2,3,4,5,6,7"),
                  pod("ml", "newcomer-0").group("newcomer").index(0).gpus(8),
                  pod("ml", "newcomer-1").group("newcomer").index(1).gpus(8)};
  auto cluster = buildClusterSnapshot(objects, {});
  troupe::queueing::Decisions d;
  for (const auto* victim : {"ml/a1", "ml/a2"})
    d.preemptions.push_back(
        {victim, "team-a", "ml/newcomer", troupe::queueing::PreemptionReason::Reclaim});
  d.admissions.push_back(
      {"ml/newcomer",
       "team-b",
       {{0, "n1", {0, 1, 2, 3, 4, 5, 6, 7}}, {0, "n2", {0, 1, 2, 3, 4, 5, 6, 7}}},
       {2}});
  auto plan = planActions(d, cluster, 100);
  std::map<std::string, int> seen;  // "<gang> <reason>"
  for (const auto& e : plan.events) seen[e.gang + " " + e.reason] += 1;
  CHECK(seen == std::map<std::string, int>{{"ml/a1 Preempted", 1},
                                           {"ml/a2 Preempted", 1},
                                           {"ml/newcomer Preempting", 1},
                                           {"ml/newcomer Admitted", 1}});
  for (const auto& e : plan.events) {
    INFO(e.gang << " " << e.reason);
    if (e.reason == "Preempting") CHECK(e.message == "Preempting ml/a1, ml/a2 to reclaim capacity");
    // The victims go now; the admission is told once its bindings are made, which may be a
    // later cycle's, after its victims are gone.
    CHECK(e.on_binding == (e.reason == "Admitted"));
  }
}

namespace {

std::vector<troupe::queueing::PodPlacement> onEightGpus(const std::vector<std::string>& nodes) {
  std::vector<troupe::queueing::PodPlacement> out;
  for (const auto& n : nodes) out.push_back({0, n, {0, 1, 2, 3, 4, 5, 6, 7}});
  return out;
}

}  // namespace

TEST_CASE("a preemptor admitted on its victims' GPUs waits for exactly the pods there",
          "[controllers][plan]") {
  auto cluster = twoGangs();
  troupe::queueing::Decisions d;
  d.preemptions.push_back(
      {"ml/victim", "team-a", "ml/newcomer", troupe::queueing::PreemptionReason::Reclaim});
  d.admissions.push_back({"ml/newcomer", "team-b", onEightGpus({"n1", "n2"}), {2}});
  auto plan = planActions(d, cluster, 100);
  REQUIRE(plan.bindings.size() == 1);
  REQUIRE(plan.making_room.count("ml/newcomer") == 1);
  const auto& room = plan.making_room.at("ml/newcomer");
  REQUIRE(room.size() == 2);
  CHECK(room[0].pod == "victim-0");
  CHECK(room[0].uid == "uid-victim-0");
  CHECK(room[1].pod == "victim-1");
}

TEST_CASE("a gang placed on capacity a victim still holds waits although it preempted nobody",
          "[controllers][plan]") {
  // The engine evicted 'victim' (8 GPUs on n1) for 'small' (4 GPUs) and placed 'other'
  // (4 GPUs) on the rest of n1 in the same cycle. Both wait for victim-0 to be gone; a
  // gang on n3, where nothing leaves, binds at once.
  ApiObjects objects;
  objects.nodes = {node("n1"), node("n3")};
  objects.queues = {queue("team-a"), queue("team-b")};
  objects.pod_groups = {podGroup("ml", "victim"), podGroup("ml", "small").queue("team-b"),
                        podGroup("ml", "other").queue("team-b"),
                        podGroup("ml", "elsewhere").queue("team-b")};
  objects.pods = {
      pod("ml", "victim-0").group("victim").index(0).gpus(8).boundTo("n1", "0,1,2,3,4,5,6,7"),
      pod("ml", "small-0").group("small").index(0).gpus(4),
      pod("ml", "other-0").group("other").index(0).gpus(4),
      pod("ml", "elsewhere-0").group("elsewhere").index(0).gpus(4)};
  auto cluster = buildClusterSnapshot(objects, {});
  troupe::queueing::Decisions d;
  d.preemptions.push_back(
      {"ml/victim", "team-a", "ml/small", troupe::queueing::PreemptionReason::Reclaim});
  d.admissions.push_back({"ml/small", "team-b", {{0, "n1", {0, 1, 2, 3}}}, {1}});
  d.admissions.push_back({"ml/other", "team-b", {{0, "n1", {4, 5, 6, 7}}}, {1}});
  d.admissions.push_back({"ml/elsewhere", "team-b", {{0, "n3", {0, 1, 2, 3}}}, {1}});
  auto plan = planActions(d, cluster, 100);
  REQUIRE(plan.bindings.size() == 3);
  CHECK(plan.making_room.size() == 2);
  REQUIRE(plan.making_room.count("ml/small") == 1);
  REQUIRE(plan.making_room.count("ml/other") == 1);
  CHECK(plan.making_room.at("ml/other").at(0).pod == "victim-0");
  CHECK(plan.making_room.count("ml/elsewhere") == 0);
}

TEST_CASE("a gang placed beside a terminating pod on GPUs it does not hold binds at once",
          "[controllers][plan]") {
  // gone-0 terminates on GPUs 0-3 of n1; 'beside' takes GPUs 4-7, free all along, and
  // 'onto' GPUs 2-5, two of which gone-0 still holds.
  ApiObjects objects;
  objects.nodes = {node("n1")};
  objects.queues = {queue("team-a")};
  objects.pod_groups = {podGroup("ml", "gone"), podGroup("ml", "beside"), podGroup("ml", "onto")};
  objects.pods = {
      pod("ml", "gone-0").group("gone").index(0).gpus(4).boundTo("n1", "0,1,2,3").deleting(),
      pod("ml", "beside-0").group("beside").index(0).gpus(4),
      pod("ml", "onto-0").group("onto").index(0).gpus(4)};
  auto cluster = buildClusterSnapshot(objects, {});
  SECTION("on free GPUs") {
    troupe::queueing::Decisions d;
    d.admissions.push_back({"ml/beside", "team-a", {{0, "n1", {4, 5, 6, 7}}}, {1}});
    auto plan = planActions(d, cluster, 100);
    CHECK(plan.making_room.empty());
  }
  SECTION("on GPUs the terminating pod holds") {
    troupe::queueing::Decisions d;
    d.admissions.push_back({"ml/onto", "team-a", {{0, "n1", {2, 3, 4, 5}}}, {1}});
    auto plan = planActions(d, cluster, 100);
    REQUIRE(plan.making_room.count("ml/onto") == 1);
    REQUIRE(plan.making_room.at("ml/onto").size() == 1);
    CHECK(plan.making_room.at("ml/onto")[0].pod == "gone-0");
  }
}

TEST_CASE("an admission naming more pods than the gang has unbound is skipped whole",
          "[controllers][plan]") {
  auto cluster = twoGangs();
  troupe::queueing::Decisions d;
  d.cycle = 3;
  d.admissions.push_back(
      {"ml/newcomer", "team-b", {{0, "n1", {0}}, {0, "n2", {0}}, {0, "n2", {1}}}, {3}});
  auto plan = planActions(d, cluster, 100);
  CHECK(plan.bindings.empty());
  REQUIRE(plan.skipped.size() == 1);
  CHECK(plan.skipped[0].key == "ml/newcomer");
}

TEST_CASE("a shrink deletes the highest replicas on the named nodes", "[controllers][plan]") {
  ApiObjects objects;
  objects.nodes = {node("n1")};
  objects.queues = {queue("team-a")};
  objects.pod_groups = {podGroup("ml", "elastic").minMember(2)};
  for (int i = 0; i < 4; ++i)
    objects.pods.push_back(
        pod("ml", "elastic-" + std::to_string(i))
            .group("elastic")
            .index(i)
            .gpus(2)
            .boundTo("n1", std::to_string(2 * i) + "," + std::to_string(2 * i + 1)));
  auto cluster = buildClusterSnapshot(objects, {});
  troupe::queueing::Decisions d;
  troupe::queueing::Resize r;
  r.gang = "ml/elastic";
  r.pod_set_counts = {2};
  r.removed = {{0, "n1", {}}, {0, "n1", {}}};
  r.preemptor = "ml/other";
  d.resizes.push_back(r);
  auto plan = planActions(d, cluster, 100);
  REQUIRE(plan.deletions.size() == 2);
  CHECK(plan.deletions[0].pod == "elastic-3");
  CHECK(plan.deletions[1].pod == "elastic-2");
  CHECK(plan.deletions[0].reason == "Shrunk");
  CHECK_THAT(plan.events[0].message, Catch::Contains("Resized to 2 pods"));
}

TEST_CASE("a preemptor placed where a shrink freed GPUs waits for the shrunk pods",
          "[controllers][plan]") {
  ApiObjects objects;
  objects.nodes = {node("n1")};
  objects.queues = {queue("team-a"), queue("team-b")};
  objects.pod_groups = {podGroup("ml", "elastic").minMember(2),
                        podGroup("ml", "other").queue("team-b")};
  for (int i = 0; i < 4; ++i)
    objects.pods.push_back(
        pod("ml", "elastic-" + std::to_string(i))
            .group("elastic")
            .index(i)
            .gpus(2)
            .boundTo("n1", std::to_string(2 * i) + "," + std::to_string(2 * i + 1)));
  objects.pods.push_back(pod("ml", "other-0").group("other").index(0).gpus(4));
  auto cluster = buildClusterSnapshot(objects, {});
  troupe::queueing::Decisions d;
  troupe::queueing::Resize r;
  r.gang = "ml/elastic";
  r.pod_set_counts = {2};
  r.removed = {{0, "n1", {6, 7}}, {0, "n1", {4, 5}}};
  r.preemptor = "ml/other";
  d.resizes.push_back(r);
  d.admissions.push_back({"ml/other", "team-b", {{0, "n1", {4, 5, 6, 7}}}, {1}});
  auto plan = planActions(d, cluster, 100);
  REQUIRE(plan.making_room.count("ml/other") == 1);
  const auto& room = plan.making_room.at("ml/other");
  REQUIRE(room.size() == 2);
  CHECK(room[0].pod == "elastic-2");
  CHECK(room[1].pod == "elastic-3");
  CHECK(room[0].uid == "uid-elastic-2");
}

TEST_CASE("a preemptor waits for its victims' pods, terminating ones included",
          "[controllers][plan]") {
  ApiObjects objects;
  objects.nodes = {node("n1"), node("n2")};
  objects.queues = {queue("team-a"), queue("team-b")};
  objects.pod_groups = {podGroup("ml", "victim").minMember(2),
                        podGroup("ml", "newcomer").minMember(2).queue("team-b")};
  objects.pods = {
      pod("ml", "victim-0")
          .group("victim")
          .index(0)
          .gpus(8)
          .boundTo("n1", "0,1,2,3,4,5,6,7")
          .deleting(),
      pod("ml", "victim-1").group("victim").index(1).gpus(8).boundTo("n2", "0,1,2,3,4,5,6,7"),
      pod("ml", "newcomer-0").group("newcomer").index(0).gpus(8),
      pod("ml", "newcomer-1").group("newcomer").index(1).gpus(8)};
  auto cluster = buildClusterSnapshot(objects, {});
  troupe::queueing::Decisions d;
  d.preemptions.push_back(
      {"ml/victim", "team-a", "ml/newcomer", troupe::queueing::PreemptionReason::Reclaim});
  d.admissions.push_back({"ml/newcomer", "team-b", onEightGpus({"n1", "n2"}), {2}});
  auto plan = planActions(d, cluster, 100);
  // Only the pod not yet terminating is deleted again...
  REQUIRE(plan.deletions.size() == 1);
  CHECK(plan.deletions[0].pod == "victim-1");
  // ...but the preemptor waits for both to be gone.
  REQUIRE(plan.making_room.size() == 1);
  const auto& room = plan.making_room.at("ml/newcomer");
  REQUIRE(room.size() == 2);
  CHECK(room[0].pod == "victim-0");
  CHECK(room[1].pod == "victim-1");
}

TEST_CASE("recovery finishes an intact half-bound gang and rolls back a broken one",
          "[controllers][recovery]") {
  ApiObjects objects;
  objects.nodes = {node("n1"), node("n2")};
  objects.queues = {queue("team-a")};
  objects.pod_groups = {podGroup("ml", "intact").minMember(2),
                        podGroup("ml", "broken").minMember(2)};
  objects.pods = {pod("ml", "intact-0").group("intact").index(0).gpus(8).boundTo("n1", "0"),
                  pod("ml", "intact-1").group("intact").index(1).gpus(8),
                  // broken-1 was deleted after broken-0 was bound.
                  pod("ml", "broken-0").group("broken").index(0).gpus(8).boundTo("n2", "0")};
  auto cluster = buildClusterSnapshot(objects, {});
  std::vector<troupe::state::AdmissionRecord> open = {
      {"ml/broken",
       "team-a",
       1,
       10,
       {{"ml", "broken-0", "n2", {0}}, {"ml", "broken-1", "n2", {1}}}},
      {"ml/intact",
       "team-a",
       1,
       10,
       {{"ml", "intact-0", "n1", {0}}, {"ml", "intact-1", "n2", {0}}}},
      {"ml/gone", "team-a", 1, 10, {{"ml", "gone-0", "n1", {0}}}},
  };
  auto steps = planRecovery(open, cluster);
  REQUIRE(steps.size() == 3);
  // broken: a pod is gone, so the bound one is deleted.
  CHECK_FALSE(steps[0].finish);
  CHECK_THAT(steps[0].reason, Catch::Contains("broken-1 is gone"));
  REQUIRE(steps[0].deletions.size() == 1);
  CHECK(steps[0].deletions[0].pod == "broken-0");
  // intact: only the unbound pod remains to bind.
  CHECK(steps[1].finish);
  REQUIRE(steps[1].remaining.size() == 1);
  CHECK(steps[1].remaining[0].pod == "intact-1");
  // gone: nothing to do but close the record.
  CHECK_FALSE(steps[2].finish);
  CHECK(steps[2].deletions.empty());
}

TEST_CASE("recovery rolls back when a node of the record is no longer Ready",
          "[controllers][recovery]") {
  ApiObjects objects;
  objects.nodes = {node("n1"), node("n2").notReady()};
  objects.queues = {queue("team-a")};
  objects.pod_groups = {podGroup("ml", "g").minMember(2)};
  objects.pods = {pod("ml", "g-0").group("g").index(0).gpus(8).boundTo("n1", "0"),
                  pod("ml", "g-1").group("g").index(1).gpus(8)};
  auto cluster = buildClusterSnapshot(objects, {});
  auto steps = planRecovery(
      {{"ml/g", "team-a", 1, 10, {{"ml", "g-0", "n1", {0}}, {"ml", "g-1", "n2", {0}}}}}, cluster);
  REQUIRE(steps.size() == 1);
  CHECK_FALSE(steps[0].finish);
  CHECK_THAT(steps[0].reason, Catch::Contains("n2"));
  REQUIRE(steps[0].deletions.size() == 1);
  CHECK(steps[0].deletions[0].pod == "g-0");
}
