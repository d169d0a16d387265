#include <catch2/catch.hpp>

#include "controllers/cluster_snapshot.h"
#include "controllers/lone_pod_groups.h"
#include "test/controllers/builders.h"

using namespace troupe::controllers;
using namespace troupe::controllers::testing;

TEST_CASE("a lone pod naming its queue is a gang of one with no PodGroup in the API",
          "[controllers][lone-pod]") {
  ApiObjects objects;
  objects.nodes = {node("n1").gpus(8)};
  objects.queues = {queue("team-a").guaranteedGpus(8)};
  objects.pods = {pod("ml", "solo").queue("team-a").gpus(2).createdAt("2026-01-01T00:00:10Z")};
  auto cluster = buildClusterSnapshot(objects, {.now = 1767225700});
  REQUIRE(cluster.snapshot.pending.size() == 1);
  const auto& pending = cluster.snapshot.pending[0];
  CHECK(pending.name == "ml/pod-uid-solo");
  CHECK(pending.queue == "team-a");
  // It has waited since the pod was made: 2026-01-01T00:00:10Z is 1767225610.
  CHECK(pending.submit_time == 1767225610);
  const auto& gang = cluster.gangs.at("ml/pod-uid-solo");
  REQUIRE(gang.pods.size() == 1);
  CHECK(gang.pods[0].name() == "solo");
}

TEST_CASE("a bound lone pod with no PodGroup in the API is a running gang of its queue",
          "[controllers][lone-pod]") {
  ApiObjects objects;
  objects.nodes = {node("n1").gpus(8)};
  objects.queues = {queue("team-a").guaranteedGpus(8)};
  objects.pods = {pod("ml", "solo").queue("team-a").gpus(2).boundTo("n1", "0,1").phase("Running")};
  auto cluster = buildClusterSnapshot(objects, {});
  REQUIRE(cluster.snapshot.running.size() == 1);
  CHECK(cluster.snapshot.running[0].spec.name == "ml/pod-uid-solo");
  CHECK(cluster.snapshot.running[0].spec.queue == "team-a");
  // Its GPUs are the gang's, not held outside the gangs.
  CHECK(cluster.snapshot.nodes[0].held_gpus.empty());
}

TEST_CASE("a lone pod's group in the API is the one read, never a second of the same name",
          "[controllers][lone-pod]") {
  ApiObjects objects;
  objects.nodes = {node("n1").gpus(8)};
  objects.queues = {queue("team-a").guaranteedGpus(8), queue("team-b").guaranteedGpus(8)};
  // The group in the API names team-b; a group made from the pod would name team-a.
  objects.pod_groups = {podGroup("ml", "a-job").minMember(1),
                        podGroup("ml", "pod-uid-solo").queue("team-b"),
                        podGroup("ml", "z-job").minMember(1)};
  objects.pods = {pod("ml", "a-job-0").group("a-job").gpus(1),
                  pod("ml", "solo").queue("team-a").gpus(2),
                  pod("ml", "z-job-0").group("z-job").gpus(1)};
  auto cluster = buildClusterSnapshot(objects, {});
  REQUIRE(cluster.gangs.size() == 3);
  CHECK(cluster.gangs.at("ml/pod-uid-solo").queue == "team-b");
}

TEST_CASE("a lone pod's group is the same document while the pod is the same version",
          "[controllers][lone-pod]") {
  // The cycle's facts cache knows an object by its document: a group made anew each cycle
  // would be read anew each cycle.
  ObjectList pods{pod("ml", "b").queue("team-a").gpus(1), pod("ml", "a").queue("team-a").gpus(1)};
  ObjectList groups{podGroup("ml", "pod-uid-a0"), podGroup("ml", "pod-uid-c")};
  FactsCache<PodFacts> facts(readPodFacts);
  facts.read(pods);
  LonePodGroups lone;
  auto first = lone.complete(groups, pods, facts);
  // In key order: pod-uid-a (made), pod-uid-a0 (API), pod-uid-b (made), pod-uid-c (API).
  REQUIRE(first.size() == 4);
  CHECK(keyOf(first[0]) == "ml/pod-uid-a");
  CHECK(keyOf(first[1]) == "ml/pod-uid-a0");
  CHECK(keyOf(first[2]) == "ml/pod-uid-b");
  CHECK(keyOf(first[3]) == "ml/pod-uid-c");
  auto second = lone.complete(groups, pods, facts);
  REQUIRE(second.size() == 4);
  CHECK(second.ref(0) == first.ref(0));
  CHECK(second.ref(2) == first.ref(2));
  // A pod gone takes its group with it.
  ObjectList one_pod(std::vector<ObjectRef>{pods.ref(1)});
  facts.read(one_pod);
  auto third = lone.complete(groups, one_pod, facts);
  REQUIRE(third.size() == 3);
  CHECK(third.ref(0) == first.ref(0));
}
