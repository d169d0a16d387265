#include <catch2/catch.hpp>

#include "api/gpu_type.h"
#include "api/pod_group.h"
#include "api/queue.h"
#include "api/training_job.h"
#include "api/validated.h"
#include "api/yaml.h"
#include "test/api/manifest.h"

namespace troupe::api {
namespace {

using nlohmann::json;

using testing::manifest;

TEST_CASE("a GPU type decodes its node labels and tolerations, and matches nodes by all labels",
          "[api][gpu-type]") {
  auto v = decodeAndValidate<GpuType>(manifest(R"(
apiVersion: troupe.dev/v1alpha1
kind: GPUType
metadata: {name: h100}
spec:
  nodeLabels: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3, troupe.dev/pool: train}
  tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
)"));
  REQUIRE(v.ok());
  const GpuType& t = v.object;
  CHECK(t.spec.tolerations.size() == 1);
  CHECK(t.spec.matches({{"nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3"},
                        {"troupe.dev/pool", "train"},
                        {"kubernetes.io/hostname", "n1"}}));
  // Every pair must match: one label alone, or another value, is not enough.
  CHECK_FALSE(t.spec.matches({{"nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3"}}));
  CHECK_FALSE(t.spec.matches(
      {{"nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB"}, {"troupe.dev/pool", "train"}}));
  CHECK(gpuTypeResource(t.metadata.name) == "gpu.troupe.dev/h100");
  std::vector<Error> errors;
  CHECK(GpuType::fromJson(t.toJson(), errors).toJson() == t.toJson());
  CHECK(errors.empty());
}

TEST_CASE("bad GPU types, queues' per-type quotas and jobs' type lists name the field and rule",
          "[api][gpu-type]") {
  struct Case {
    std::string name;
    std::string yaml;
    std::string want_field;
    std::string want_message;
  };
  const std::string type = "kind: GPUType\nmetadata: {name: h100}\n";
  const std::string queue = "kind: Queue\nmetadata: {name: team-a}\n";
  const std::string job = R"(kind: TrainingJob
metadata: {name: j, namespace: team-a}
spec:
  queue: team-a
  replicas: 1
  template: {spec: {containers: [{name: c, image: i}]}}
)";
  std::vector<Case> cases = {
      {"a type that names no node", type + "spec: {nodeLabels: {}}", "spec.nodeLabels",
       "Required value: a GPU type names its nodes by at least one label"},
      {"a type without a spec", type, "spec", "Required value"},
      {"a type named like a subdomain",
       "kind: GPUType\nmetadata: {name: h100.sxm}\n"
       "spec: {nodeLabels: {a: b}}",
       "metadata.name",
       "Invalid value: \"h100.sxm\": a lowercase RFC 1123 label must consist of lower case "
       "alphanumeric characters or '-', and must start and end with an alphanumeric character "
       "(e.g. 'my-name',  or '123-abc', regex used for validation is "
       "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"},
      {"a label value with a space", type + "spec: {nodeLabels: {gpu: \"H 100\"}}",
       "spec.nodeLabels[gpu]", ""},
      {"a toleration that is nearly right",
       type + "spec: {nodeLabels: {a: b}, tolerations: [{key: k, operator: Near}]}",
       "spec.tolerations[0].operator",
       "Unsupported value: \"Near\": supported values: \"Equal\", \"Exists\""},
      // 6 + 4 = 10 typed GPUs guaranteed, of 8 GPUs.
      {"types guaranteed more than the GPU",
       queue + "spec: {resources: {nvidia.com/gpu: {guaranteed: 8, gpuTypes: "
               "[{name: h100, guaranteed: 6}, {name: a100, guaranteed: 4}]}}}",
       "spec.resources[nvidia.com/gpu].guaranteed",
       "Invalid value: \"8\": must be at least the sum of its GPU types' guarantees (10)"},
      {"a type's guarantee above its limit",
       queue + "spec: {resources: {nvidia.com/gpu: {guaranteed: 8, gpuTypes: "
               "[{name: h100, guaranteed: 8, limit: 4}]}}}",
       "spec.resources[nvidia.com/gpu].gpuTypes[0].guaranteed",
       "Invalid value: \"8\": must be less than or equal to limit (4)"},
      {"a type lending more than its guarantee",
       queue + "spec: {resources: {nvidia.com/gpu: {guaranteed: 8, gpuTypes: "
               "[{name: h100, guaranteed: 2, lendingLimit: 3}]}}}",
       "spec.resources[nvidia.com/gpu].gpuTypes[0].lendingLimit",
       "Invalid value: \"3\": must be less than or equal to guaranteed (2)"},
      {"a type twice",
       queue + "spec: {resources: {nvidia.com/gpu: {gpuTypes: [{name: h100}, {name: h100}]}}}",
       "spec.resources[nvidia.com/gpu].gpuTypes[1]", "Duplicate value: {\"name\":\"h100\"}"},
      {"types under CPU", queue + "spec: {resources: {cpu: {gpuTypes: [{name: h100}]}}}",
       "spec.resources[cpu].gpuTypes", "Forbidden: only nvidia.com/gpu has GPU types"},
      {"a type's resource set directly",
       queue + "spec: {resources: {gpu.troupe.dev/h100: {guaranteed: 8}}}", "spec.resources",
       "Invalid value: \"gpu.troupe.dev/h100\": a GPU type's quota is set in "
       "spec.resources[nvidia.com/gpu].gpuTypes"},
      {"an unknown borrowing policy",
       queue + "spec: {gpuTypeFungibility: {whenCanBorrow: Sometimes}}",
       "spec.gpuTypeFungibility.whenCanBorrow",
       "Unsupported value: \"Sometimes\": supported values: \"Borrow\", \"TryNextType\""},
      {"a job naming a type twice", job + "  gpuTypes: [h100, a100, h100]\n", "spec.gpuTypes[2]",
       "Duplicate value: \"h100\""},
      {"a pod group naming a type in capitals",
       "kind: PodGroup\nmetadata: {name: g, namespace: team-b}\n"
       "spec: {minMember: 1, queue: q, gpuTypes: [H100]}",
       "spec.gpuTypes[0]", ""},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      const json object = manifest("apiVersion: troupe.dev/v1alpha1\n" + tc.yaml + "\n");
      const std::string kind = object.value("kind", "");
      std::vector<Error> errors;
      if (kind == "GPUType") errors = decodeAndValidate<GpuType>(object).errors;
      if (kind == "Queue") errors = decodeAndValidate<Queue>(object).errors;
      if (kind == "TrainingJob") errors = decodeAndValidate<TrainingJob>(object).errors;
      if (kind == "PodGroup") errors = decodeAndValidate<PodGroup>(object).errors;
      REQUIRE(errors.size() == 1);
      CHECK(errors[0].field_path == tc.want_field);
      if (!tc.want_message.empty()) CHECK(errors[0].message == tc.want_message);
    }
  }
}

TEST_CASE("a queue's per-type quotas are the quotas of the types' resources", "[api][gpu-type]") {
  auto v = decodeAndValidate<Queue>(manifest(R"(
apiVersion: troupe.dev/v1alpha1
kind: Queue
metadata: {name: team-a}
spec:
  resources:
    nvidia.com/gpu:
      guaranteed: 48
      limit: 96
      gpuTypes: [{name: h100, guaranteed: 32, lendingLimit: 8}, {name: a100, limit: 16}]
)"));
  REQUIRE(v.ok());
  // Defaults: take the preferred type by borrowing, try the next type before preempting.
  CHECK(v.object.spec.gpu_type_fungibility.when_can_borrow == WhenCanBorrow::Borrow);
  CHECK(v.object.spec.gpu_type_fungibility.when_can_preempt == WhenCanPreempt::TryNextType);
  const auto quotas = v.object.spec.quotasByResource();
  REQUIRE(quotas.size() == 3);
  CHECK(quotas.at("nvidia.com/gpu").guaranteedOrZero().value() == 48);
  CHECK(quotas.at("nvidia.com/gpu").gpu_types.empty());
  CHECK(quotas.at("gpu.troupe.dev/h100").guaranteedOrZero().value() == 32);
  CHECK(quotas.at("gpu.troupe.dev/h100").lending_limit->value() == 8);
  CHECK(quotas.at("gpu.troupe.dev/a100").guaranteedOrZero().isZero());
  CHECK(quotas.at("gpu.troupe.dev/a100").limit->value() == 16);
  CHECK(v.object.spec.guaranteedPath("gpu.troupe.dev/a100") ==
        "spec.resources[nvidia.com/gpu].gpuTypes[1].guaranteed");
  std::vector<Error> errors;
  CHECK(Queue::fromJson(v.object.toJson(), errors).toJson() == v.object.toJson());
  CHECK(errors.empty());
}

}  // namespace
}  // namespace troupe::api
