#include <catch2/catch.hpp>

#include "admission/object_admission.h"
#include "api/yaml.h"
#include "test/admission/fake_cluster.h"

namespace troupe::admission {
namespace {

using nlohmann::json;
using testing::FakeCluster;
using testing::queueYaml;

json manifest(const std::string& yaml) {
  auto doc = api::parseYaml(yaml);
  REQUIRE(doc.ok());
  return *doc;
}

json job(const std::string& ns, const std::string& queue) {
  return manifest(
      "apiVersion: troupe.dev/v1alpha1\nkind: TrainingJob\nmetadata: {name: j, "
      "namespace: " +
      ns + "}\nspec:\n  queue: " + queue +
      "\n  replicas: 1\n  template: {spec: {containers: [{name: c, image: i}]}}\n");
}

// org 32 GPUs over team-a (namespace team-a only) and team-b (namespaces labelled team=b).
FakeCluster twoTeams() {
  FakeCluster cluster;
  cluster.addQueue(queueYaml("org", "", 32), "2026-01-01T00:00:00Z");
  cluster.addQueue(queueYaml("team-a", "org", 16, "  namespaces: [team-a]\n"),
                   "2026-01-01T00:00:01Z");
  cluster.addQueue(queueYaml("team-b", "org", 8, "  namespaceSelector: {matchLabels: {team: b}}\n"),
                   "2026-01-01T00:00:02Z");
  cluster.addQueue(queueYaml("open", "", 0), "2026-01-01T00:00:03Z");
  cluster.addNamespace("team-a");
  cluster.addNamespace("team-b", {{"team", "b"}});
  cluster.addNamespace("team-b-eval", {{"team", "b"}});
  return cluster;
}

Verdict create(const std::string& kind, const std::string& ns, const json& object,
               const ClusterView& cluster) {
  return admit({Operation::Create, kind, ns, &object, nullptr}, cluster);
}

TEST_CASE("a namespace may submit only to the queues that admit it", "[admission][namespaces]") {
  auto cluster = twoTeams();
  CHECK(create("TrainingJob", "team-a", job("team-a", "team-a"), cluster).allowed());
  CHECK(create("TrainingJob", "team-b-eval", job("team-b-eval", "team-b"), cluster).allowed());
  CHECK(create("TrainingJob", "team-b", job("team-b", "open"), cluster).allowed());
  CHECK(create("TrainingJob", "team-a", job("team-a", "not-yet"), cluster).allowed());

  auto refused = create("TrainingJob", "team-a", job("team-a", "team-b"), cluster);
  REQUIRE(refused.outcome == Verdict::Outcome::Forbidden);
  CHECK(refused.code() == 403);
  REQUIRE(refused.errors.size() == 1);
  CHECK(refused.errors[0].field_path == "spec.queue");
  auto status = refused.status({"troupe.dev", "trainingjobs", "TrainingJob", "j"});
  CHECK(status["message"] ==
        "trainingjobs.troupe.dev \"j\" is forbidden: queue team-b does not admit namespace "
        "team-a (it admits namespaces labelled team=b)");
  CHECK(status["details"]["causes"][0]["field"] == "spec.queue");
  CHECK(status["code"] == 403);
}

TEST_CASE("only leaf queues take jobs, PodGroups and lone pods", "[admission][leaf]") {
  auto cluster = twoTeams();
  auto refused = create("TrainingJob", "team-a", job("team-a", "org"), cluster);
  REQUIRE(refused.outcome == Verdict::Outcome::Invalid);
  CHECK(refused.errors[0].describe() ==
        "spec.queue: Invalid value: \"org\": org is not a leaf queue; its leaves are team-a, "
        "team-b");

  json pod = manifest(R"(apiVersion: v1
kind: Pod
metadata: {name: solo, namespace: team-a, labels: {troupe.dev/queue: team-b}}
spec: {schedulerName: troupe, containers: [{name: c, image: i}]}
)");
  auto pod_refused = create("Pod", "team-a", pod, cluster);
  REQUIRE(pod_refused.outcome == Verdict::Outcome::Forbidden);
  CHECK(pod_refused.errors[0].field_path == "metadata.labels[troupe.dev/queue]");
  // A pod of a PodGroup is admitted through its group.
  pod["metadata"]["labels"]["troupe.dev/pod-group"] = "g";
  CHECK(create("Pod", "team-a", pod, cluster).allowed());

  json group = manifest(R"(apiVersion: troupe.dev/v1alpha1
kind: PodGroup
metadata: {name: g, namespace: team-a}
spec: {minMember: 2, queue: team-b}
)");
  CHECK(create("PodGroup", "team-a", group, cluster).outcome == Verdict::Outcome::Forbidden);
  // The PodGroup Troupe makes for a TrainingJob was checked through the job.
  group["metadata"]["ownerReferences"] = {{{"apiVersion", "troupe.dev/v1alpha1"},
                                           {"kind", "TrainingJob"},
                                           {"name", "j"},
                                           {"uid", "u"},
                                           {"controller", true}}};
  CHECK(create("PodGroup", "team-a", group, cluster).allowed());
}

TEST_CASE("a queue write that breaks the tree is refused, a missing parent is not",
          "[admission][queue-tree]") {
  auto cluster = twoTeams();
  auto queue = [](const std::string& name, const std::string& parent, int gpus) {
    return manifest(queueYaml(name, parent, gpus));
  };
  // 16 + 8 + 16 = 40 > 32.
  auto extra = create("Queue", "", queue("extra", "org", 16), cluster);
  REQUIRE_FALSE(extra.allowed());
  CHECK(extra.errors[0].describe() ==
        "spec.resources[nvidia.com/gpu].guaranteed: Invalid value: \"16\": the guarantees of "
        "org's children would add up to 40 nvidia.com/gpu, more than org's 32");
  CHECK(create("Queue", "", queue("extra", "org", 8), cluster).allowed());  // 32: fits
  CHECK(create("Queue", "", queue("later", "not-yet", 8), cluster).allowed());

  // org lowered below the 24 its children hold.
  json org = queue("org", "", 20);
  json old_org = queue("org", "", 32);
  auto lowered = admit({Operation::Update, "Queue", "", &org, &old_org}, cluster);
  REQUIRE_FALSE(lowered.allowed());
  CHECK(lowered.errors[0].message ==
        "Invalid value: \"20\": less than the 24 nvidia.com/gpu its children are guaranteed "
        "(team-a 16, team-b 8)");

  // team-a made the child of one of its own descendants.
  cluster.addQueue(queueYaml("team-a-sub", "team-a", 0));
  json moved = queue("team-a", "team-a-sub", 16);
  json before = queue("team-a", "org", 16);
  auto cycle = admit({Operation::Update, "Queue", "", &moved, &before}, cluster);
  REQUIRE_FALSE(cycle.allowed());
  CHECK(cycle.errors[0].field_path == "spec.parent");

  // api/'s own rules come first.
  auto self_parent = create("Queue", "", queue("loop", "loop", 0), cluster);
  REQUIRE_FALSE(self_parent.allowed());
  CHECK(self_parent.errors[0].message ==
        "Invalid value: \"loop\": a queue cannot be its own parent");
}

TEST_CASE("per GPU type, children are guaranteed at most their parent's",
          "[admission][gpu-types]") {
  FakeCluster cluster;
  // org: 32 GPUs, 16 of them H100s; team-a already guaranteed 12 H100s of its 16 GPUs.
  auto typed = [](const std::string& name, const std::string& parent, int gpus, int h100) {
    std::string yaml =
        "apiVersion: troupe.dev/v1alpha1\nkind: Queue\nmetadata: {name: " + name +
        "}\nspec:\n  resources:\n    nvidia.com/gpu:\n      guaranteed: " + std::to_string(gpus) +
        "\n      gpuTypes: [{name: h100, guaranteed: " + std::to_string(h100) + "}]\n";
    if (!parent.empty()) yaml += "  parent: " + parent + "\n";
    return manifest(yaml);
  };
  cluster.addQueue(typed("org", "", 32, 16).dump(), "2026-01-01T00:00:00Z");
  cluster.addQueue(typed("team-a", "org", 16, 12).dump(), "2026-01-01T00:00:01Z");
  // 12 + 8 = 20 H100s of org's 16, though 16 + 8 = 24 GPUs of its 32 fit.
  auto over = create("Queue", "", typed("team-b", "org", 8, 8), cluster);
  REQUIRE_FALSE(over.allowed());
  CHECK(over.errors[0].describe() ==
        "spec.resources[nvidia.com/gpu].gpuTypes[0].guaranteed: Invalid value: \"8\": the "
        "guarantees of org's children would add up to 20 gpu.troupe.dev/h100, more than org's 16");
  CHECK(create("Queue", "", typed("team-b", "org", 8, 4), cluster).allowed());  // 16: fits
}

TEST_CASE("the queue of a job cannot change", "[admission][immutable]") {
  auto cluster = twoTeams();
  json old_job = job("team-a", "team-a");
  json moved = job("team-a", "team-b");
  auto verdict = admit({Operation::Update, "TrainingJob", "team-a", &moved, &old_job}, cluster);
  REQUIRE_FALSE(verdict.allowed());
  CHECK(verdict.errors[0].describe() ==
        "spec.queue: Invalid value: \"team-b\": field is immutable");
}

}  // namespace
}  // namespace troupe::admission
