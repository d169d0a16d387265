// The operator's conversion of fractional GPUs: a pod's troupe.dev/gpu-fraction becomes
// thousandths of a GPU (troupe.dev/gpu-milli) in its request and its shape, nodes offer
// 1000 per GPU, and a queue's GPU quota is mirrored x1000, so that quota counts fractions.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "controllers/cluster_snapshot.h"
#include "queueing/engine.h"
#include "test/controllers/builders.h"

using namespace troupe::controllers;
using namespace troupe::controllers::testing;
using troupe::queueing::kGpu;

namespace {

// A one-pod PodGroup in team-a whose pod asks `fraction` of one GPU.
void addFractionalGang(ApiObjects& objects, const std::string& name, const std::string& fraction) {
  objects.pod_groups.push_back(podGroup("ml", name));
  objects.pods.push_back(
      pod("ml", name + "-0").group(name).index(0).annotate("troupe.dev/gpu-fraction", fraction));
}

const troupe::queueing::GangSpec* pendingGang(const ClusterSnapshot& c, const std::string& key) {
  for (const auto& g : c.snapshot.pending)
    if (g.name == key) return &g;
  return nullptr;
}

}  // namespace

TEST_CASE("a half-GPU pod asks 500 thousandths, nodes and queue quotas count 1000 per GPU",
          "[controllers][gpu-milli]") {
  ApiObjects objects;
  objects.nodes = {node("n1").gpus(2)};
  objects.queues = {queue("team-a").guaranteedGpus(1).limitGpus(1)};
  addFractionalGang(objects, "half", "0.5");
  objects.pod_groups.push_back(podGroup("ml", "whole"));
  objects.pods.push_back(pod("ml", "whole-0").group("whole").index(0).gpus(2));
  auto cluster = buildClusterSnapshot(objects, {});
  REQUIRE(cluster.problems.empty());
  const std::size_t milli = cluster.names.slotFor("troupe.dev/gpu-milli");
  REQUIRE(milli < troupe::queueing::kMaxResources);
  // Node: 2 GPUs = 2000 thousandths.
  REQUIRE(cluster.snapshot.nodes.size() == 1);
  CHECK(cluster.snapshot.nodes[0].allocatable[milli] == 2000);
  // Queue: guaranteed and limit 1 GPU = 1000 thousandths; lending unlimited as before.
  REQUIRE(cluster.snapshot.queues.size() == 1);
  const auto& q = cluster.snapshot.queues[0];
  CHECK(q.guaranteed[milli] == 1000);
  CHECK(q.limit[milli] == 1000);
  CHECK(q.lending_limit[milli] == troupe::queueing::ResourceVector::kUnlimited);
  // The half pod: no whole GPU, 500 thousandths, a shape that shares a GPU.
  const auto* half = pendingGang(cluster, "ml/half");
  REQUIRE(half != nullptr);
  CHECK(half->pod_sets[0].shape->requests[kGpu] == 0);
  CHECK(half->pod_sets[0].shape->requests[milli] == 500);
  CHECK(half->pod_sets[0].shape->gpu_milli == 500);
  // The whole pod: 2 GPUs = 2000 thousandths, no fraction.
  const auto* whole = pendingGang(cluster, "ml/whole");
  REQUIRE(whole != nullptr);
  CHECK(whole->pod_sets[0].shape->requests[kGpu] == 2);
  CHECK(whole->pod_sets[0].shape->requests[milli] == 2000);
  CHECK(whole->pod_sets[0].shape->gpu_milli == 0);
}

TEST_CASE("a queue limited to 1 GPU runs two half-GPU pods, not three",
          "[controllers][gpu-milli]") {
  ApiObjects objects;
  objects.nodes = {node("n1").gpus(8)};
  objects.queues = {queue("team-a").limitGpus(1)};
  for (const char* name : {"h1", "h2", "h3"}) addFractionalGang(objects, name, "0.5");
  auto cluster = buildClusterSnapshot(objects, {});
  REQUIRE(cluster.problems.empty());
  auto engine = troupe::queueing::Engine::fromSnapshot(cluster.snapshot);
  REQUIRE(engine.ok());
  const auto d = engine->schedule(0);
  // 0.5 + 0.5 = 1 GPU = the limit; a third would make 1.5.
  CHECK(d.admissions.size() == 2);
  CHECK(engine->queueStatus("team-a")->allocated[cluster.names.slotFor("troupe.dev/gpu-milli")] ==
        1000);
}

TEST_CASE("a damaged gpu-fraction annotation leaves its gang out, naming the field and the rule",
          "[controllers][gpu-milli]") {
  ApiObjects objects;
  objects.nodes = {node("n1").gpus(2)};
  objects.queues = {queue("team-a")};
  addFractionalGang(objects, "bad", "1.5");
  auto cluster = buildClusterSnapshot(objects, {});
  CHECK(pendingGang(cluster, "ml/bad") == nullptr);
  REQUIRE(cluster.problems.size() == 1);
  CHECK(cluster.problems[0].error.field_path ==
        "pods[bad-0].metadata.annotations[troupe.dev/gpu-fraction]");
  CHECK(cluster.problems[0].error.message.find("less than 1") != std::string::npos);
}
