#include <catch2/catch.hpp>

#include "controllers/scheduling_inputs.h"
#include "test/controllers/builders.h"

using namespace troupe::controllers;
using namespace troupe::controllers::testing;

TEST_CASE("a pod update asks for a scheduling cycle only when the cycle would read it",
          "[controllers][scheduling-inputs]") {
  const Json pending = pod("ml", "a-0").group("a").index(0).gpus(2);
  const Json bound = pod("ml", "a-0").group("a").index(0).gpus(2).boundTo("n1", "0,1");
  Json running = bound;
  running["status"] = {{"phase", "Running"}, {"startTime", "2026-11-24T07:00:00Z"}};
  running["metadata"]["resourceVersion"] = "42";
  struct Case {
    std::string name;
    Json before, after;
    bool matters;
  };
  std::vector<Case> cases = {
      {"bound: spec.nodeName and the GPU annotation", pending, bound, true},
      {"the kubelet reports it Running with its start time", bound, running, false},
      {"it succeeded: its capacity frees", running,
       pod("ml", "a-0").group("a").index(0).gpus(2).boundTo("n1", "0,1").phase("Succeeded"), true},
      {"it is being deleted", running,
       pod("ml", "a-0").group("a").index(0).gpus(2).boundTo("n1", "0,1").deleting(), true},
      {"another group label", pending, pod("ml", "a-0").group("b").index(0).gpus(2), true},
      {"other requests", pending, pod("ml", "a-0").group("a").index(0).gpus(4), true},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) { CHECK(podUpdateMatters(tc.before, tc.after) == tc.matters); }
  }
}

TEST_CASE("a PodGroup or node update asks for a cycle only when the cycle would read it",
          "[controllers][scheduling-inputs]") {
  const Json group = podGroup("ml", "a").minMember(2).queue("team-a");
  Json with_status = group;
  with_status["status"] = {{"phase", "Pending"}, {"pending", {{"reason", "NoPlacement"}}}};
  CHECK_FALSE(podGroupUpdateMatters(group, with_status));  // the operator's own status write
  CHECK(podGroupUpdateMatters(with_status,
                              podGroup("ml", "a").minMember(2).queue("team-a").phase("Succeeded")));
  CHECK(podGroupUpdateMatters(group, podGroup("ml", "a").minMember(3).queue("team-a")));
  CHECK(podGroupUpdateMatters(group, podGroup("ml", "a").minMember(2).queue("team-a").annotate(
                                         "troupe.dev/preemptible", "false")));

  const Json ready = node("n1").gpus(8);
  Json heartbeat = ready;
  for (auto& c : heartbeat["status"]["conditions"]) c["lastHeartbeatTime"] = "2026-11-24T07:05:00Z";
  CHECK_FALSE(nodeUpdateMatters(ready, heartbeat));
  // Who holds which GPU, as the simulated kubelet writes it: the pods say as much.
  Json held = ready;
  held["metadata"]["annotations"]["troupe.dev/gpu-holders"] = "0: ml/nb-a 0.5, ml/nb-b 0.5";
  CHECK_FALSE(nodeUpdateMatters(ready, held));
  CHECK_FALSE(nodeUpdateMatters(held, ready));
  Json held_and_topology = held;
  held_and_topology["metadata"]["annotations"]["troupe.dev/gpu-topology"] = R"({"numa":[[0]]})";
  CHECK(nodeUpdateMatters(held, held_and_topology));
  CHECK(nodeUpdateMatters(ready, node("n1").gpus(8).notReady()));
  CHECK(nodeUpdateMatters(ready, node("n1").gpus(4)));
  CHECK(nodeUpdateMatters(ready, node("n1").gpus(8).rack("r2")));
  Json cordoned = ready;
  cordoned["spec"]["unschedulable"] = true;
  CHECK(nodeUpdateMatters(ready, cordoned));
}

TEST_CASE("a Queue update asks for a cycle only when its spec or deletion changes",
          "[controllers][scheduling-inputs]") {
  const Json team = queue("team-a").guaranteedGpus(8);
  Json with_status = team;
  with_status["status"] = {{"allocated", {{"nvidia.com/gpu", "8"}}}, {"admitted", 2}};
  with_status["metadata"]["annotations"] = {{"troupe.dev/decayed-usage", "{}"}};
  CHECK_FALSE(queueUpdateMatters(team, with_status));  // the operator's own writes
  CHECK(queueUpdateMatters(team, queue("team-a").guaranteedGpus(16)));
  CHECK(queueUpdateMatters(team, queue("team-a").guaranteedGpus(8).parent("org")));
  Json deleting = team;
  deleting["metadata"]["deletionTimestamp"] = "2026-11-24T07:05:00Z";
  CHECK(queueUpdateMatters(team, deleting));
}
