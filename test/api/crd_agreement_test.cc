#include <catch2/catch.hpp>

#include <regex>

#include "api/gpu_type.h"
#include "api/pod_group.h"
#include "api/queue.h"
#include "api/training_job.h"
#include "api/validated.h"
#include "test/api/crd_support.h"

// One source of truth: every manifest in these tables goes through the C++ validation in
// api/ and through the schema of crds/*.yaml, and both must agree on accept or reject and
// on the field of the first error. Rules that only one side can express (quantity
// arithmetic, name formats, resource names) are tested in the per-kind tests instead.
namespace troupe::api {
namespace {

using nlohmann::json;

// Typed validation writes map keys as `spec.resources[cpu]`, schema validation as
// `spec.resources.cpu` (both are what Kubernetes itself does); compare them in one form.
std::string normalize(const std::string& path) {
  static const std::regex key(R"(\[([^\]0-9][^\]]*)\])");
  return std::regex_replace(path, key, ".$1");
}

// Stands for an explicit JSON null in a table (a null value there means: erase the field).
const json kNull = "<null>";

struct Case {
  std::string name;
  std::vector<std::pair<std::string, json>> set;           // JSON pointer -> value (null: erase)
  std::string want_field;                                  // empty: valid
  std::vector<std::pair<std::string, json>> old_set = {};  // for updates: changes to the old
};

json apply(json object, const std::vector<std::pair<std::string, json>>& changes) {
  for (const auto& [pointer, value] : changes) {
    json::json_pointer p(pointer);
    if (value.is_null()) {
      object[p.parent_pointer()].erase(p.back());
    } else if (value == kNull) {
      object[p] = nullptr;
    } else {
      object[p] = value;
    }
  }
  return object;
}

template <typename T>
void runTable(const std::string& crd_file, const json& base, const std::vector<Case>& cases) {
  auto schema = testing::crdSchema(crd_file);
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      json object = apply(base, tc.set);
      std::vector<Error> typed;
      std::vector<Error> structural;
      if (tc.old_set.empty()) {
        typed = decodeAndValidate<T>(object).errors;
        structural = testing::schemaErrors(schema, object);
      } else {
        json old_object = apply(object, tc.old_set);
        auto old_typed = decodeAndValidate<T>(old_object);
        REQUIRE(old_typed.ok());
        auto now = decodeAndValidate<T>(object);
        typed = now.errors.empty() ? now.object.validateUpdate(old_typed.object) : now.errors;
        structural = testing::schemaErrors(schema, object, &old_object);
      }
      INFO("C++: " << (typed.empty() ? "valid" : typed[0].describe()));
      INFO("schema: " << (structural.empty() ? "valid" : structural[0].describe()));
      if (tc.want_field.empty()) {
        CHECK(typed.empty());
        CHECK(structural.empty());
      } else {
        REQUIRE_FALSE(typed.empty());
        REQUIRE_FALSE(structural.empty());
        CHECK(normalize(typed[0].field_path) == tc.want_field);
        CHECK(normalize(structural[0].field_path) == tc.want_field);
      }
    }
  }
}

const json kJob = {{"apiVersion", "troupe.dev/v1alpha1"},
                   {"kind", "TrainingJob"},
                   {"metadata", {{"name", "llama"}, {"namespace", "team-a"}}},
                   {"spec",
                    {{"queue", "team-a"},
                     {"replicas", 4},
                     {"template",
                      {{"metadata", {{"annotations", {{"troupe.dev/sim-duration-seconds", "60"}}}}},
                       {"spec",
                        {{"containers",
                          {{{"name", "trainer"},
                            {"image", "example.com/trainer:1"},
                            {"resources", {{"limits", {{"nvidia.com/gpu", 8}}}}}}}}}}}}}}};

TEST_CASE("TrainingJob: C++ validation and the CRD schema agree", "[api][crd-agreement]") {
  std::vector<Case> cases = {
      {"a rigid gang", {}, ""},
      {"an elastic job", {{"/spec/minReplicas", 2}}, ""},
      {"a GPU limit written as a fraction",
       {{"/spec/template/spec/containers/0/resources/limits/cpu", 1.5}},
       ""},
      {"every optional field set",
       {{"/spec/priorityClassName", "training-high"},
        {"/spec/preemptible", false},
        {"/spec/suspend", true},
        {"/spec/restartPolicy", {{"maxRestarts", 0}, {"backoffSeconds", 30}}},
        {"/spec/topology", {{"level", "troupe.dev/rack"}, {"mode", "Required"}}},
        {"/spec/ttlSecondsAfterFinished", 0},
        {"/spec/runtimeEstimateSeconds", 3600}},
       ""},
      {"a status the controller wrote",
       {{"/status",
         {{"phase", "Queued"},
          {"conditions", {{{"type", "Admitted"}, {"status", "False"}, {"reason", "QueueAtLimit"}}}},
          {"pending", {{"reason", "QueueAtLimit"}, {"request", {{"nvidia.com/gpu", "32"}}}}}}}},
       ""},
      {"an empty topology", {{"/spec/topology", json::object()}}, "spec.topology.level"},
      {"an explicit null is the same as leaving a field out",
       {{"/spec/topology", kNull}, {"/spec/suspend", kNull}, {"/spec/minReplicas", kNull}},
       ""},
      {"a null required field is a missing one", {{"/spec/replicas", kNull}}, "spec.replicas"},
      {"no queue", {{"/spec/queue", nullptr}}, "spec.queue"},
      {"an empty queue", {{"/spec/queue", ""}}, "spec.queue"},
      {"a queue name with capitals", {{"/spec/queue", "Team-A"}}, "spec.queue"},
      {"no replicas", {{"/spec/replicas", nullptr}}, "spec.replicas"},
      {"zero replicas", {{"/spec/replicas", 0}}, "spec.replicas"},
      {"replicas as a string", {{"/spec/replicas", "four"}}, "spec.replicas"},
      {"replicas above the cap", {{"/spec/replicas", 100001}}, "spec.replicas"},
      {"minReplicas above replicas", {{"/spec/minReplicas", 10}}, "spec.minReplicas"},
      {"minReplicas zero", {{"/spec/minReplicas", 0}}, "spec.minReplicas"},
      {"no template", {{"/spec/template", nullptr}}, "spec.template"},
      {"a template without a pod spec", {{"/spec/template/spec", nullptr}}, "spec.template.spec"},
      {"a template that is a string", {{"/spec/template", "pod"}}, "spec.template"},
      {"no containers",
       {{"/spec/template/spec/containers", json::array()}},
       "spec.template.spec.containers"},
      {"a container without an image",
       {{"/spec/template/spec/containers/0/image", nullptr}},
       "spec.template.spec.containers[0].image"},
      {"a container without a name",
       {{"/spec/template/spec/containers/0/name", nullptr}},
       "spec.template.spec.containers[0].name"},
      {"a topology without a level",
       {{"/spec/topology", {{"mode", "Required"}}}},
       "spec.topology.level"},
      {"an unknown topology mode",
       {{"/spec/topology", {{"level", "troupe.dev/rack"}, {"mode", "Always"}}}},
       "spec.topology.mode"},
      {"negative restarts",
       {{"/spec/restartPolicy", {{"maxRestarts", -1}}}},
       "spec.restartPolicy.maxRestarts"},
      {"negative backoff",
       {{"/spec/restartPolicy", {{"backoffSeconds", -1}}}},
       "spec.restartPolicy.backoffSeconds"},
      {"negative ttl", {{"/spec/ttlSecondsAfterFinished", -5}}, "spec.ttlSecondsAfterFinished"},
      {"a zero runtime estimate",
       {{"/spec/runtimeEstimateSeconds", 0}},
       "spec.runtimeEstimateSeconds"},
      {"suspend as a string", {{"/spec/suspend", "true"}}, "spec.suspend"},
      {"preemptible as a number", {{"/spec/preemptible", 1}}, "spec.preemptible"},
      {"an unknown phase", {{"/status/phase", "Exploding"}}, "status.phase"},
      {"a condition with a bad status",
       {{"/status/conditions", {{{"type", "Admitted"}, {"status", "Maybe"}}}}},
       "status.conditions[0].status"},
      {"two conditions of one type",
       {{"/status/conditions",
         {{{"type", "Admitted"}, {"status", "True"}},
          {{"type", "Admitted"}, {"status", "False"}}}}},
       "status.conditions[1]"},
      {"scaling an existing job", {{"/spec/replicas", 8}}, "", {{"/spec/replicas", 4}}},
      {"moving a job to another queue",
       {{"/spec/queue", "team-b"}},
       "spec.queue",
       {{"/spec/queue", "team-a"}}},
      {"H100s preferred, A100s taken", {{"/spec/gpuTypes", {"h100", "a100"}}}, ""},
      {"a GPU type twice", {{"/spec/gpuTypes", {"h100", "h100"}}}, "spec.gpuTypes[1]"},
      {"a GPU type in capitals", {{"/spec/gpuTypes", {"H100"}}}, "spec.gpuTypes[0]"},
      {"GPU types as one string", {{"/spec/gpuTypes", "h100"}}, "spec.gpuTypes"},
      {"the type the gang got", {{"/status/gpuType", "h100"}}, ""},
  };
  runTable<TrainingJob>("trainingjobs.troupe.dev.yaml", kJob, cases);
}

const json kQueue = {{"apiVersion", "troupe.dev/v1alpha1"},
                     {"kind", "Queue"},
                     {"metadata", {{"name", "team-a"}}},
                     {"spec",
                      {{"parent", "org"},
                       {"resources",
                        {{"nvidia.com/gpu", {{"guaranteed", 32}, {"limit", "64"}}},
                         {"memory", {{"guaranteed", "1Ti"}}}}}}}};

TEST_CASE("Queue: C++ validation and the CRD schema agree", "[api][crd-agreement]") {
  std::vector<Case> cases = {
      {"a child queue with GPU and memory quotas", {}, ""},
      {"a top-level queue with everything set",
       {{"/spec/parent", nullptr},
        {"/spec/priority", 10},
        {"/spec/maxWaitSeconds", 3600},
        {"/spec/preemption",
         {{"withinQueue", "Never"}, {"reclaim", false}, {"minRuntimeSeconds", 300}}},
        {"/spec/resources/cpu",
         {{"guaranteed", "500m"}, {"overQuotaWeight", "1.5"}, {"lendingLimit", "250m"}}}},
       ""},
      {"an empty spec", {{"/spec", json::object()}}, ""},
      {"an empty parent is the top level", {{"/spec/parent", ""}}, ""},
      {"a status the controller wrote",
       {{"/status",
         {{"allocated", {{"nvidia.com/gpu", "16"}}},
          {"fairShare", {{"nvidia.com/gpu", "40"}}},
          {"pending", 2},
          {"admitted", 1},
          {"running", 1}}}},
       ""},
      {"a negative guarantee",
       {{"/spec/resources/nvidia.com~1gpu/guaranteed", "-1"}},
       "spec.resources.nvidia.com/gpu.guaranteed"},
      {"a malformed limit",
       {{"/spec/resources/nvidia.com~1gpu/limit", "lots"}},
       "spec.resources.nvidia.com/gpu.limit"},
      {"a quota as a bool",
       {{"/spec/resources/memory/guaranteed", true}},
       "spec.resources.memory.guaranteed"},
      {"a resource entry that is not an object",
       {{"/spec/resources/cpu", "4"}},
       "spec.resources.cpu"},
      {"a parent name with an underscore", {{"/spec/parent", "org_top"}}, "spec.parent"},
      {"priority as a string", {{"/spec/priority", "high"}}, "spec.priority"},
      {"a negative max wait", {{"/spec/maxWaitSeconds", -1}}, "spec.maxWaitSeconds"},
      {"an unknown within-queue policy",
       {{"/spec/preemption", {{"withinQueue", "Sometimes"}}}},
       "spec.preemption.withinQueue"},
      {"reclaim as a string",
       {{"/spec/preemption", {{"reclaim", "maybe"}}}},
       "spec.preemption.reclaim"},
      {"a negative minimum runtime",
       {{"/spec/preemption", {{"minRuntimeSeconds", -1}}}},
       "spec.preemption.minRuntimeSeconds"},
      {"a running count as a string", {{"/status/running", "two"}}, "status.running"},
      {"quotas per GPU type",
       {{"/spec/resources/nvidia.com~1gpu/gpuTypes",
         {{{"name", "h100"}, {"guaranteed", 16}, {"limit", "32"}, {"lendingLimit", 8}},
          {{"name", "a100"}}}},
        {"/spec/gpuTypeFungibility", {{"whenCanBorrow", "TryNextType"}}}},
       ""},
      {"a per-type quota without a name",
       {{"/spec/resources/nvidia.com~1gpu/gpuTypes", {{{"guaranteed", 4}}}}},
       "spec.resources.nvidia.com/gpu.gpuTypes[0].name"},
      {"a negative per-type limit",
       {{"/spec/resources/nvidia.com~1gpu/gpuTypes", {{{"name", "h100"}, {"limit", "-1"}}}}},
       "spec.resources.nvidia.com/gpu.gpuTypes[0].limit"},
      {"a per-type quota in capitals",
       {{"/spec/resources/nvidia.com~1gpu/gpuTypes", {{{"name", "H100"}}}}},
       "spec.resources.nvidia.com/gpu.gpuTypes[0].name"},
      {"an unknown preemption fungibility",
       {{"/spec/gpuTypeFungibility", {{"whenCanPreempt", "Always"}}}},
       "spec.gpuTypeFungibility.whenCanPreempt"},
  };
  runTable<Queue>("queues.troupe.dev.yaml", kQueue, cases);
}

const json kPodGroup = {{"apiVersion", "troupe.dev/v1alpha1"},
                        {"kind", "PodGroup"},
                        {"metadata", {{"name", "mpi"}, {"namespace", "team-b"}}},
                        {"spec", {{"minMember", 3}, {"queue", "team-b"}}}};

TEST_CASE("PodGroup: C++ validation and the CRD schema agree", "[api][crd-agreement]") {
  std::vector<Case> cases = {
      {"a gang of three", {}, ""},
      {"every optional field set",
       {{"/spec/priorityClassName", "training-high"},
        {"/spec/minResources", {{"nvidia.com/gpu", 24}, {"cpu", "48"}}},
        {"/spec/scheduleTimeoutSeconds", 600},
        {"/status", {{"phase", "Running"}, {"scheduled", 3}, {"running", 3}}}},
       ""},
      {"no minMember", {{"/spec/minMember", nullptr}}, "spec.minMember"},
      {"a null minMember", {{"/spec/minMember", kNull}}, "spec.minMember"},
      {"zero minMember", {{"/spec/minMember", 0}}, "spec.minMember"},
      {"no queue", {{"/spec/queue", nullptr}}, "spec.queue"},
      {"a queue with spaces", {{"/spec/queue", "team b"}}, "spec.queue"},
      {"a malformed minimum resource",
       {{"/spec/minResources", {{"cpu", "x"}}}},
       "spec.minResources.cpu"},
      {"a zero timeout", {{"/spec/scheduleTimeoutSeconds", 0}}, "spec.scheduleTimeoutSeconds"},
      {"an unknown phase", {{"/status", {{"phase", "Queued"}}}}, "status.phase"},
      {"moving a group to another queue",
       {{"/spec/queue", "team-a"}},
       "spec.queue",
       {{"/spec/queue", "team-b"}}},
      {"A100s only", {{"/spec/gpuTypes", {"a100"}}, {"/status/gpuType", "a100"}}, ""},
      {"a GPU type twice", {{"/spec/gpuTypes", {"a100", "a100"}}}, "spec.gpuTypes[1]"},
  };
  runTable<PodGroup>("podgroups.troupe.dev.yaml", kPodGroup, cases);
}

const json kGpuType = {
    {"apiVersion", "troupe.dev/v1alpha1"},
    {"kind", "GPUType"},
    {"metadata", {{"name", "h100"}}},
    {"spec", {{"nodeLabels", {{"nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3"}}}}}};

TEST_CASE("GPUType: C++ validation and the CRD schema agree", "[api][crd-agreement]") {
  std::vector<Case> cases = {
      {"H100 nodes by their product label", {}, ""},
      {"a toleration for the nodes' taint",
       {{"/spec/tolerations",
         {{{"key", "nvidia.com/gpu"}, {"operator", "Exists"}, {"effect", "NoSchedule"}}}}},
       ""},
      {"no spec", {{"/spec", nullptr}}, "spec"},
      {"no node labels", {{"/spec/nodeLabels", nullptr}}, "spec.nodeLabels"},
      {"empty node labels", {{"/spec/nodeLabels", json::object()}}, "spec.nodeLabels"},
      {"a label value that is a number",
       {{"/spec/nodeLabels", {{"gpu", 100}}}},
       "spec.nodeLabels.gpu"},
      {"an unknown toleration operator",
       {{"/spec/tolerations", {{{"key", "k"}, {"operator", "Near"}}}}},
       "spec.tolerations[0].operator"},
      {"an unknown taint effect",
       {{"/spec/tolerations", {{{"key", "k"}, {"effect", "Sometimes"}}}}},
       "spec.tolerations[0].effect"},
  };
  runTable<GpuType>("gputypes.troupe.dev.yaml", kGpuType, cases);
}

}  // namespace
}  // namespace troupe::api
