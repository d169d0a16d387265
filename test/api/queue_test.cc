#include <catch2/catch.hpp>

#include "api/pod_group.h"
#include "api/queue.h"
#include "api/validated.h"
#include "api/yaml.h"
#include "test/api/manifest.h"

namespace troupe::api {
namespace {

using nlohmann::json;

using testing::manifest;

TEST_CASE("a queue decodes its quotas as exact quantities, with defaults", "[api][queue]") {
  auto v = decodeAndValidate<Queue>(manifest(R"(
apiVersion: troupe.dev/v1alpha1
kind: Queue
metadata: {name: team-a}
spec:
  parent: org
  resources:
    nvidia.com/gpu: {guaranteed: 32, limit: 64, overQuotaWeight: "2", lendingLimit: 16}
    cpu: {guaranteed: "1500", limit: 3k}
    memory: {guaranteed: 12Ti}
  maxWaitSeconds: 3600
)"));
  REQUIRE(v.ok());
  const auto& q = v.object;
  CHECK(q.spec.parent == "org");
  const auto& gpu = q.spec.resources.at("nvidia.com/gpu");
  CHECK(gpu.guaranteedOrZero().value() == 32);
  CHECK(gpu.limit->value() == 64);
  CHECK(gpu.weightOrOne().milliValue() == 2000);
  CHECK(q.spec.resources.at("memory").weightOrOne().milliValue() == 1000);  // default weight 1
  CHECK_FALSE(q.spec.resources.at("memory").limit.has_value());             // no limit
  CHECK(q.spec.resources.at("cpu").limit->value() == 3000);
  CHECK(q.spec.priority == 0);
  CHECK(q.spec.preemption.within_queue == WithinQueuePreemption::LowerPriority);
  CHECK(q.spec.preemption.reclaim);
  CHECK(*q.spec.max_wait_seconds == 3600);

  json encoded = q.toJson();
  CHECK(encoded["spec"]["resources"]["cpu"]["limit"] == "3k");
  CHECK(encoded["spec"]["resources"]["memory"]["guaranteed"] == "12Ti");
  std::vector<Error> errors;
  CHECK(Queue::fromJson(encoded, errors).toJson() == encoded);
  CHECK(errors.empty());
}

TEST_CASE("queue rules that need arithmetic on quantities", "[api][queue]") {
  struct Case {
    std::string name;
    std::string spec;
    std::string want_field;
    std::string want_message;
  };
  std::vector<Case> cases = {
      {"guaranteed above limit", "resources: {nvidia.com/gpu: {guaranteed: 16, limit: 8}}",
       "spec.resources[nvidia.com/gpu].guaranteed",
       "Invalid value: \"16\": must be less than or equal to limit (8)"},
      {"lending more than the guarantee",
       "resources: {nvidia.com/gpu: {guaranteed: 4, lendingLimit: 5}}",
       "spec.resources[nvidia.com/gpu].lendingLimit",
       "Invalid value: \"5\": must be less than or equal to guaranteed (4)"},
      {"1Gi is more than 1000Mi", "resources: {memory: {guaranteed: 1Gi, limit: 1000Mi}}",
       "spec.resources[memory].guaranteed",
       "Invalid value: \"1Gi\": must be less than or equal to limit (1000Mi)"},
      {"a negative quota", "resources: {cpu: {limit: -1}}", "spec.resources[cpu].limit",
       "Invalid value: \"-1\": must be greater than or equal to 0"},
      {"a bad resource name", "resources: {\"nvidia.com/\": {limit: 1}}", "spec.resources",
       "Invalid value: \"nvidia.com/\": name part must be non-empty"},
      {"its own parent", "parent: team-a", "spec.parent",
       "Invalid value: \"team-a\": a queue cannot be its own parent"},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      auto v = decodeAndValidate<Queue>(manifest(
          "apiVersion: troupe.dev/v1alpha1\nkind: Queue\nmetadata: {name: team-a}\nspec: {" +
          tc.spec + "}\n"));
      REQUIRE(v.errors.size() == 1);
      CHECK(v.errors[0].field_path == tc.want_field);
      CHECK(v.errors[0].message == tc.want_message);
    }
  }
}

TEST_CASE("a queue has no namespace", "[api][queue]") {
  auto v = decodeAndValidate<Queue>(
      manifest("kind: Queue\nmetadata: {name: org, namespace: default}\nspec: {}\n"));
  REQUIRE(v.errors.size() == 1);
  CHECK(v.errors[0].describe() == "metadata.namespace: Forbidden: not allowed on this type");
}

TEST_CASE("a pod group decodes and validates", "[api][pod-group]") {
  auto v = decodeAndValidate<PodGroup>(manifest(R"(
apiVersion: troupe.dev/v1alpha1
kind: PodGroup
metadata: {name: mpi, namespace: team-b}
spec:
  minMember: 3
  queue: team-b
  minResources: {nvidia.com/gpu: 24}
  scheduleTimeoutSeconds: 600
status: {phase: Admitted, scheduled: 3}
)"));
  REQUIRE(v.ok());
  CHECK(v.object.spec.min_member == 3);
  CHECK(v.object.spec.min_resources.at("nvidia.com/gpu").value() == 24);
  CHECK(v.object.status.phase == PodGroupPhase::Admitted);
  std::vector<Error> errors;
  CHECK(PodGroup::fromJson(v.object.toJson(), errors).toJson() == v.object.toJson());

  auto bad = decodeAndValidate<PodGroup>(
      manifest("kind: PodGroup\nmetadata: {name: g}\nspec: {minMember: 0, queue: q, "
               "scheduleTimeoutSeconds: 0}\n"));
  std::vector<std::string> paths;
  for (const auto& e : bad.errors) paths.push_back(e.field_path);
  CHECK(paths == std::vector<std::string>{"spec.minMember", "spec.scheduleTimeoutSeconds"});
  auto missing =
      decodeAndValidate<PodGroup>(manifest("kind: PodGroup\nmetadata: {name: g}\nspec: {}\n"));
  paths.clear();
  for (const auto& e : missing.errors) paths.push_back(e.field_path);
  CHECK(paths == std::vector<std::string>{"spec.minMember", "spec.queue"});
}

}  // namespace
}  // namespace troupe::api
