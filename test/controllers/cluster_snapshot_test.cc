#include <catch2/catch.hpp>

#include "controllers/action_plan.h"
#include "controllers/cluster_snapshot.h"
#include "controllers/engine_loader.h"
#include "controllers/gpu_indices.h"
#include "test/controllers/builders.h"

using namespace troupe::controllers;
using namespace troupe::controllers::testing;
using troupe::queueing::kCpu;
using troupe::queueing::kGpu;

namespace {

std::vector<Json> gangPods(const std::string& group, int n, int gpus) {
  std::vector<Json> out;
  for (int i = 0; i < n; ++i)
    out.push_back(pod("ml", group + "-" + std::to_string(i)).group(group).index(i).gpus(gpus));
  return out;
}

void append(ObjectList& to, const std::vector<Json>& more) {
  for (const auto& object : more) to.push_back(object);
}

}  // namespace

TEST_CASE("a node offers what pods of other schedulers leave free", "[controllers][snapshot]") {
  ApiObjects objects;
  objects.nodes = {node("n1").gpus(8), node("n2").gpus(8).notReady()};
  objects.pods = {
      pod("kube", "daemon").scheduler("default-scheduler").gpus(2).boundTo("n1"),
      pod("kube", "done").scheduler("default-scheduler").gpus(4).boundTo("n1").phase("Succeeded")};
  auto cluster = buildClusterSnapshot(objects, {});
  REQUIRE(cluster.snapshot.nodes.size() == 2);
  const auto& n1 = cluster.snapshot.nodes[0];
  // 8 GPUs - 2 held by the running daemon; the succeeded pod holds nothing.
  CHECK(n1.allocatable[kGpu] == 6);
  // 64 cores - 1 core requested by the daemon, in millicores.
  CHECK(n1.allocatable[kCpu] == 63000);
  CHECK(n1.ready);
  CHECK_FALSE(cluster.snapshot.nodes[1].ready);
}

TEST_CASE("a bound pod no gang counts still holds its node", "[controllers][snapshot]") {
  // A group deleted under its running pods, a lone pod whose own group is not made yet,
  // and a finished group whose pod still runs: none is a gang the engine sees, and each
  // pod still holds its GPUs. Counting them nowhere would let the engine place a gang on
  // GPUs in use.
  ApiObjects objects;
  objects.nodes = {node("n1").gpus(8)};
  objects.queues = {queue("team-a").guaranteedGpus(8)};
  objects.pod_groups = {podGroup("ml", "done").phase("Failed")};
  objects.pods = {pod("ml", "orphan").group("deleted").gpus(1).boundTo("n1", "0"),
                  pod("ml", "solo").gpus(2).boundTo("n1", "1,2"),
                  pod("ml", "straggler").group("done").gpus(4).boundTo("n1", "3,4,5,6"),
                  pod("ml", "waiting").group("deleted").gpus(1)};
  auto cluster = buildClusterSnapshot(objects, {});
  REQUIRE(cluster.snapshot.nodes.size() == 1);
  CHECK(cluster.snapshot.nodes[0].allocatable[kGpu] == 1);
  CHECK(cluster.snapshot.running.empty());
  CHECK(cluster.snapshot.pending.empty());
}

TEST_CASE("the GPUs a pod outside the gangs holds are never handed out again",
          "[controllers][snapshot]") {
  // The same pods as above: GPUs 0, 1-2 and 3-6 are theirs. The engine must see GPU 7 as
  // the one left, not GPU 0 (the lowest of what its count leaves).
  ApiObjects objects;
  objects.nodes = {node("n1").gpus(8)};
  objects.queues = {queue("team-a").guaranteedGpus(8)};
  objects.pod_groups = {podGroup("ml", "done").phase("Failed"), podGroup("ml", "next")};
  objects.pods = {pod("ml", "orphan").group("deleted").gpus(1).boundTo("n1", "0"),
                  pod("ml", "solo").gpus(2).boundTo("n1", "1,2"),
                  pod("ml", "straggler").group("done").gpus(4).boundTo("n1", "3,4,5,6"),
                  pod("ml", "next-0").group("next").gpus(1)};
  auto cluster = buildClusterSnapshot(objects, {});
  REQUIRE(cluster.snapshot.nodes.size() == 1);
  CHECK(cluster.snapshot.nodes[0].held_gpus == std::vector<int>{0, 1, 2, 3, 4, 5, 6});
  auto loaded = loadEngine(cluster, {});
  const auto d = loaded.engine.schedule(0);
  REQUIRE(d.admissions.size() == 1);
  CHECK(d.admissions[0].pods[0].gpus == std::vector<int>{7});
}

TEST_CASE("a pod being deleted holds its node until it is gone", "[controllers][snapshot]") {
  // victim-0 was deleted and terminates on n1; newcomer wants 8 GPUs and n1 is the only
  // node: it is not placed there until the pod is gone.
  ApiObjects objects;
  objects.nodes = {node("n1").gpus(8)};
  objects.queues = {queue("team-a"), queue("team-b").guaranteedGpus(8)};
  objects.pod_groups = {podGroup("ml", "victim"), podGroup("ml", "newcomer").queue("team-b")};
  objects.pods = {
      pod("ml", "victim-0").group("victim").gpus(8).boundTo("n1", "0,1,2,3,4,5,6,7").deleting(),
      pod("ml", "newcomer-0").group("newcomer").gpus(8)};
  auto cluster = buildClusterSnapshot(objects, {});
  REQUIRE(cluster.snapshot.running.size() == 1);
  REQUIRE(cluster.snapshot.running[0].pods.size() == 1);
  CHECK(cluster.snapshot.running[0].pods[0].terminating);
  CHECK(cluster.terminating_gangs == std::vector<std::string>{"ml/victim"});
  CHECK(cluster.gangs.at("ml/victim").bound_requests[kGpu] == 8);
  auto loaded = loadEngine(cluster, {});
  const auto d = loaded.engine.schedule(0);
  CHECK(d.empty());
  REQUIRE(loaded.engine.explanation("ml/newcomer"));
  CHECK(loaded.engine.explanation("ml/newcomer")->reason ==
        troupe::queueing::PendingReason::WaitingForReclaim);
}

TEST_CASE("the bound pods of a gang left out for a problem still hold their node",
          "[controllers][snapshot]") {
  // broken's second pod asks for two node selector terms, which Troupe refuses: the gang
  // is left out, and its bound pod's GPUs 0-3 stay held.
  ApiObjects objects;
  objects.nodes = {node("n1").gpus(8)};
  objects.queues = {queue("team-a")};
  objects.pod_groups = {podGroup("ml", "broken")};
  Json bad = pod("ml", "broken-1").group("broken").index(1).gpus(4);
  bad["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
     ["nodeSelectorTerms"] = Json::array({Json::object(), Json::object()});
  objects.pods = {pod("ml", "broken-0").group("broken").index(0).gpus(4).boundTo("n1", "0,1,2,3"),
                  bad};
  auto cluster = buildClusterSnapshot(objects, {});
  CHECK(cluster.gangs.count("ml/broken") == 0);
  REQUIRE(cluster.snapshot.nodes.size() == 1);
  CHECK(cluster.snapshot.nodes[0].allocatable[kGpu] == 4);
  CHECK(cluster.snapshot.nodes[0].held_gpus == std::vector<int>{0, 1, 2, 3});
}

TEST_CASE("a lone pod with its own PodGroup is a pending gang of one", "[controllers][snapshot]") {
  ApiObjects objects;
  objects.nodes = {node("n1").gpus(8)};
  objects.queues = {queue("team-a").guaranteedGpus(8)};
  objects.pod_groups = {podGroup("ml", "pod-uid-solo")};
  objects.pods = {pod("ml", "solo").gpus(2)};
  auto cluster = buildClusterSnapshot(objects, {});
  REQUIRE(cluster.snapshot.pending.size() == 1);
  CHECK(cluster.snapshot.pending[0].name == "ml/pod-uid-solo");
  const auto& gang = cluster.gangs.at("ml/pod-uid-solo");
  CHECK(gang.state == GangState::Pending);
  REQUIRE(gang.pods.size() == 1);
  CHECK(gang.pods[0].name() == "solo");
}

TEST_CASE("a PodGroup becomes a pending gang once minMember pods wait, not before",
          "[controllers][snapshot]") {
  struct Case {
    std::string name;
    int pods;
    GangState want_state;
  };
  std::vector<Case> cases = {
      {"three of four pods exist: still waiting for pods", 3, GangState::WaitingForPods},
      {"all four pods exist: pending", 4, GangState::Pending},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      ApiObjects objects;
      objects.queues = {queue("team-a").guaranteedGpus(8)};
      objects.priority_classes = {{{"metadata", {{"name", "high"}}}, {"value", 1000}}};
      objects.pod_groups = {podGroup("ml", "train")
                                .minMember(4)
                                .priorityClass("high")
                                .annotate("troupe.dev/preemptible", "false")};
      objects.pods = gangPods("train", tc.pods, 2);
      auto cluster = buildClusterSnapshot(objects, {});
      CHECK(cluster.gangs.at("ml/train").state == tc.want_state);
      if (tc.want_state == GangState::Pending) {
        REQUIRE(cluster.snapshot.pending.size() == 1);
        const auto& g = cluster.snapshot.pending[0];
        CHECK(g.name == "ml/train");
        CHECK(g.queue == "team-a");
        CHECK(g.priority == 1000);
        CHECK_FALSE(g.preemptible);
        REQUIRE(g.pod_sets.size() == 1);
        CHECK(g.pod_sets[0].count == 4);
        CHECK(g.pod_sets[0].min_count == 4);
        CHECK(g.pod_sets[0].shape->requests[kGpu] == 2);
      } else {
        CHECK(cluster.snapshot.pending.empty());
      }
    }
  }
}

TEST_CASE("a gang with bound pods is running where its pods are, GPUs included",
          "[controllers][snapshot]") {
  ApiObjects objects;
  objects.nodes = {node("n1")};
  objects.queues = {queue("team-a")};
  objects.pod_groups = {podGroup("ml", "train").minMember(2)};
  objects.pods = {pod("ml", "train-0").group("train").index(0).gpus(4).boundTo("n1", "0,1,2,3"),
                  pod("ml", "train-1").group("train").index(1).gpus(4).boundTo("n1", "4,5,6,7")};
  auto cluster = buildClusterSnapshot(objects, {});
  REQUIRE(cluster.snapshot.running.size() == 1);
  const auto& r = cluster.snapshot.running[0];
  REQUIRE(r.pods.size() == 2);
  CHECK(r.pods[0].node == "n1");
  CHECK(r.pods[0].gpus == std::vector<int>{0, 1, 2, 3});
  CHECK(r.pods[1].gpus == std::vector<int>{4, 5, 6, 7});
  // The gang's pods do not count as foreign load on the node.
  CHECK(cluster.snapshot.nodes[0].allocatable[kGpu] == 8);
  CHECK(cluster.gangs.at("ml/train").bound_requests[kGpu] == 8);
}

TEST_CASE("each gang gets exactly its own pods whatever order the lists come in",
          "[controllers][snapshot]") {
  // Job "a" has twelve replicas and job "a-1" one: in key order the pod a-1-0 falls between
  // a-1 and a-10, so the pods of one group do not follow each other. The groups come out of
  // key order, a group appears twice, and one pod names a group that does not exist.
  ApiObjects objects;
  objects.queues = {queue("team-a")};
  objects.pod_groups = {podGroup("ml", "b").minMember(1), podGroup("ml", "a-1").minMember(1),
                        podGroup("ml", "a").minMember(12), podGroup("ml", "b").minMember(1)};
  std::vector<Json> pods = gangPods("a", 12, 1);
  pods.push_back(pod("ml", "a-1-0").group("a-1").gpus(2));
  pods.push_back(pod("ml", "b-0").group("b").gpus(3));
  pods.push_back(pod("ml", "orphan-0").group("none").gpus(4));
  std::sort(pods.begin(), pods.end(), [](const Json& x, const Json& y) {
    return x["metadata"]["name"] < y["metadata"]["name"];
  });
  for (bool reversed : {false, true}) {
    DYNAMIC_SECTION("pods " << (reversed ? "in reverse key order" : "in key order")) {
      if (reversed) std::reverse(pods.begin(), pods.end());
      append(objects.pods, pods);
      auto cluster = buildClusterSnapshot(objects, {});
      REQUIRE(cluster.gangs.size() == 3);
      const auto& a = cluster.gangs.at("ml/a");
      REQUIRE(a.pods.size() == 12);
      for (int i = 0; i < 12; ++i) CHECK(a.pods[i].name() == "a-" + std::to_string(i));
      REQUIRE(cluster.gangs.at("ml/a-1").pods.size() == 1);
      CHECK(cluster.gangs.at("ml/a-1").pods[0].name() == "a-1-0");
      REQUIRE(cluster.gangs.at("ml/b").pods.size() == 1);
      CHECK(cluster.gangs.at("ml/b").pods[0].name() == "b-0");
      std::map<std::string, troupe::queueing::ResourceVector> asked;  // b, listed twice, once
      for (const auto& g : cluster.snapshot.pending)
        asked[g.name] = g.pod_sets[0].shape->requests * g.pod_sets[0].count;
      CHECK(asked.at("ml/a")[kGpu] == 12);
      CHECK(asked.at("ml/a-1")[kGpu] == 2);
      CHECK(asked.at("ml/b")[kGpu] == 3);
    }
  }
}

TEST_CASE("pods of different shapes in one group form separate pod sets",
          "[controllers][snapshot]") {
  ApiObjects objects;
  objects.queues = {queue("team-a")};
  objects.pod_groups = {podGroup("ml", "mixed").minMember(3)};
  objects.pods = {pod("ml", "launcher").group("mixed"),
                  pod("ml", "worker-0").group("mixed").gpus(8),
                  pod("ml", "worker-1").group("mixed").gpus(8)};
  auto cluster = buildClusterSnapshot(objects, {});
  REQUIRE(cluster.snapshot.pending.size() == 1);
  const auto& sets = cluster.snapshot.pending[0].pod_sets;
  REQUIRE(sets.size() == 2);
  CHECK(sets[0].count + sets[1].count == 3);
  // With several pod sets every pod is required.
  CHECK(sets[0].min_count == sets[0].count);
}

TEST_CASE("a big gang that does not fit gets no binding while a small one is bound whole",
          "[controllers][snapshot][plan]") {
  ApiObjects objects;
  objects.nodes = {node("n1"), node("n2")};
  objects.queues = {queue("team-a").guaranteedGpus(16)};
  objects.pod_groups = {podGroup("ml", "big").minMember(3).createdAt("2026-01-01T00:00:00Z"),
                        podGroup("ml", "small").minMember(2).createdAt("2026-01-01T00:01:00Z")};
  // big: 3 pods x 8 GPUs = 24 > 16 in the cluster; small: 2 x 4 = 8.
  append(objects.pods, gangPods("big", 3, 8));
  append(objects.pods, gangPods("small", 2, 4));
  auto cluster = buildClusterSnapshot(objects, {});
  auto loaded = loadEngine(cluster, {});
  CHECK(loaded.problems.empty());
  auto decisions = loaded.engine.schedule(1000);
  auto plan = planActions(decisions, cluster, 1000);
  REQUIRE(plan.bindings.size() == 1);
  const auto& record = plan.bindings[0];
  CHECK(record.gang == "ml/small");
  REQUIRE(record.bindings.size() == 2);
  CHECK(record.bindings[0].pod == "small-0");
  CHECK(record.bindings[1].pod == "small-1");
  CHECK(record.bindings[0].gpus.size() == 4);
  CHECK(plan.deletions.empty());
  REQUIRE_FALSE(plan.events.empty());
  CHECK(plan.events[0].reason == "Admitted");
}

TEST_CASE("a queue outside a valid tree is left out and the problem named",
          "[controllers][snapshot]") {
  ApiObjects objects;
  objects.queues = {queue("orphan").parent("nowhere"), queue("team-a")};
  auto cluster = buildClusterSnapshot(objects, {});
  REQUIRE(cluster.snapshot.queues.size() == 1);
  CHECK(cluster.snapshot.queues[0].name == "team-a");
  REQUIRE(cluster.problems.size() == 1);
  CHECK(cluster.problems[0].key == "orphan");
  CHECK(cluster.problems[0].error.field_path == "spec.parent");
}

TEST_CASE("a bad queue leaves out itself and what is under it, not its siblings or parent",
          "[controllers][snapshot]") {
  // org 16 GPUs: team-a 8 and team-b 8 fill it; extra, made last, asks 8 more.
  ApiObjects objects;
  objects.queues = {queue("org").guaranteedGpus(16),
                    queue("team-a").parent("org").guaranteedGpus(8).created("2026-01-01T00:00:01Z"),
                    queue("team-b").parent("org").guaranteedGpus(8).created("2026-01-01T00:00:02Z"),
                    queue("extra").parent("org").guaranteedGpus(8).created("2026-01-01T00:00:03Z")};
  auto cluster = buildClusterSnapshot(objects, {});
  std::vector<std::string> names;
  for (const auto& q : cluster.snapshot.queues) names.push_back(q.name);
  std::sort(names.begin(), names.end());
  CHECK(names == std::vector<std::string>{"org", "team-a", "team-b"});
  // A job of extra waits, and says which queue and why.
  auto why = cluster.admissibility->whyNot("extra", "ml");
  REQUIRE(why.has_value());
  CHECK_THAT(*why, Catch::StartsWith("queue extra cannot take jobs (GuaranteeExceedsParent): "));
  CHECK(cluster.admissibility->whyNot("team-a", "ml") == std::nullopt);
  CHECK(cluster.admissibility->whyNot("org", "ml") ==
        "org is not a leaf queue; its leaves are extra, team-a, team-b");
}

TEST_CASE("a gang of a namespace its queue does not admit is never given to the engine",
          "[controllers][snapshot]") {
  // The queue admitted namespace ml when the gang was made; it no longer does.
  ApiObjects objects;
  objects.queues = {queue("team-a").guaranteedGpus(8).namespaces({"team-a"}),
                    queue("shared").namespaceSelector("tier", "research")};
  objects.namespaces = {namespaceObject("ml", {{"tier", "research"}}), namespaceObject("team-a")};
  objects.pod_groups = {podGroup("ml", "train").minMember(2),
                        podGroup("ml", "eval").queue("shared")};
  objects.pods = gangPods("train", 2, 2);
  append(objects.pods, gangPods("eval", 1, 1));
  auto cluster = buildClusterSnapshot(objects, {});
  REQUIRE(cluster.snapshot.pending.size() == 1);
  CHECK(cluster.snapshot.pending[0].name == "ml/eval");  // the selector matches ml
  CHECK(cluster.pending_recycled.size() == 1);
  CHECK(cluster.gangs.at("ml/train").state == GangState::Pending);
  REQUIRE(cluster.inadmissible.contains("ml/train"));
  CHECK(cluster.inadmissible.at("ml/train") ==
        "queue team-a does not admit namespace ml (it admits team-a)");
}

TEST_CASE("decayed usage from the state store reaches the queue", "[controllers][snapshot]") {
  ApiObjects objects;
  objects.queues = {queue("team-a")};
  SnapshotOptions options;
  options.usage["team-a"] = {{"nvidia.com/gpu", 12}};
  auto cluster = buildClusterSnapshot(objects, options);
  CHECK(cluster.snapshot.queues[0].decayed_usage[kGpu] == 12);
}

TEST_CASE("GPU index annotations parse strictly", "[controllers][snapshot]") {
  CHECK(parseGpuIndices("0,1,2,3") == std::vector<int>{0, 1, 2, 3});
  CHECK(parseGpuIndices("").empty());
  CHECK(parseGpuIndices("1,x").empty());
  CHECK(parseGpuIndices("64").empty());
  CHECK(formatGpuIndices({4, 5}) == "4,5");
}
