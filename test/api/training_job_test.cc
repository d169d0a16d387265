#include <catch2/catch.hpp>

#include "api/training_job.h"
#include "api/validated.h"
#include "api/yaml.h"

namespace troupe::api {
namespace {

using nlohmann::json;

const char* kRigid = R"(
apiVersion: troupe.dev/v1alpha1
kind: TrainingJob
metadata: {name: llama-70b, namespace: team-a}
spec:
  queue: team-a
  priorityClassName: training-normal
  replicas: 4
  topology: {level: troupe.dev/rack, mode: Required}
  template:
    metadata:
      annotations: {troupe.dev/sim-duration-seconds: "600"}
    spec:
      containers:
      - name: trainer
        image: registry.example.com/llama:1.0
        resources:
          requests: {cpu: "32", memory: 256Gi}
          limits: {nvidia.com/gpu: 8}
)";

json manifest(const char* yaml) {
  auto doc = parseYaml(yaml);
  REQUIRE(doc.ok());
  return *doc;
}

TEST_CASE("a rigid gang decodes with the CRD's defaults in place", "[api][training-job]") {
  auto v = decodeAndValidate<TrainingJob>(manifest(kRigid));
  REQUIRE(v.ok());
  const auto& job = v.object;
  CHECK(job.spec.queue == "team-a");
  CHECK(job.spec.replicas == 4);
  CHECK(job.spec.minReplicasOrReplicas() == 4);
  CHECK_FALSE(job.spec.isElastic());
  CHECK(job.spec.preemptible);                       // default true
  CHECK(job.spec.restart_policy.max_restarts == 3);  // default 3
  CHECK(job.spec.restart_policy.backoff_seconds == 10);
  REQUIRE(job.spec.topology.has_value());
  CHECK(job.spec.topology->mode == TopologyMode::Required);
  CHECK(job.spec.template_annotations.at("troupe.dev/sim-duration-seconds") == "600");
  auto gang = job.gangRequests(job.spec.replicas);
  REQUIRE(gang.ok());
  // 4 replicas x 8 GPUs = 32; 4 x 256Gi = 1Ti
  CHECK(gang->at("nvidia.com/gpu").value() == 32);
  CHECK(gang->at("memory").toString() == "1Ti");
}

TEST_CASE("a TrainingJob survives encode and decode, status included", "[api][training-job]") {
  auto v = decodeAndValidate<TrainingJob>(manifest(kRigid));
  REQUIRE(v.ok());
  TrainingJob job = v.object;
  job.spec.min_replicas = 2;
  job.status.phase = JobPhase::Queued;
  job.status.selector = "troupe.dev/job-name=llama-70b";
  setCondition(job.status.conditions, {"Admitted", "False", "QueueAtLimit", "waiting"},
               "2025-01-01T00:00:00Z");
  job.status.pending =
      PendingExplanation{"QueueAtLimit",
                         "team-a would hold 40 nvidia.com/gpu, above its limit of 32",
                         "team-a",
                         {{"nvidia.com/gpu", Quantity::fromMilli(32000)}},
                         {{"nvidia.com/gpu", Quantity::fromMilli(16000)}},
                         {{"nvidia.com/gpu", Quantity::fromMilli(8000)}},
                         {{"nvidia.com/gpu", Quantity::fromMilli(32000)}},
                         {{"nvidia.com/gpu", Quantity::fromMilli(24000)}}};
  json encoded = job.toJson();
  CHECK(encoded["status"]["pending"]["limit"]["nvidia.com/gpu"] == "32");
  CHECK(encoded["spec"]["template"]["spec"]["containers"][0]["name"] == "trainer");

  std::vector<Error> errors;
  TrainingJob again = TrainingJob::fromJson(encoded, errors);
  REQUIRE(errors.empty());
  CHECK(again.toJson() == encoded);
  CHECK(again.status.pending->fair_share.at("nvidia.com/gpu").value() == 24);
  CHECK(again.status.conditions[0].last_transition_time == "2025-01-01T00:00:00Z");
}

TEST_CASE("setCondition moves lastTransitionTime only when the status changes",
          "[api][training-job]") {
  std::vector<Condition> conditions;
  CHECK(setCondition(conditions, {"Running", "False", "Starting", ""}, "t1"));
  CHECK_FALSE(setCondition(conditions, {"Running", "False", "Starting", ""}, "t2"));
  CHECK(setCondition(conditions, {"Running", "False", "StillStarting", ""}, "t3"));
  CHECK(conditions[0].last_transition_time == "t1");  // same status: time kept
  CHECK(setCondition(conditions, {"Running", "True", "Started", ""}, "t4"));
  CHECK(conditions[0].last_transition_time == "t4");
}

TEST_CASE("an invalid TrainingJob reports every broken rule at once", "[api][training-job]") {
  auto v = decodeAndValidate<TrainingJob>(manifest(R"(
apiVersion: troupe.dev/v1alpha1
kind: TrainingJob
metadata: {name: Bad_Name, namespace: team-a}
spec:
  queue: Team-A
  replicas: 4
  minReplicas: 10
  restartPolicy: {maxRestarts: -1}
  topology: {level: ""}
  template:
    spec:
      schedulerName: default-scheduler
      containers:
      - name: trainer
        resources: {requests: {cpu: "4"}, limits: {cpu: "2"}}
)"));
  std::vector<std::string> paths;
  for (const auto& e : v.errors) paths.push_back(e.field_path);
  std::vector<std::string> want = {"metadata.name",
                                   "spec.queue",
                                   "spec.minReplicas",
                                   "spec.template.spec.containers[0].image",
                                   "spec.template.spec.containers[0].resources.requests",
                                   "spec.template.spec.schedulerName",
                                   "spec.topology.level",
                                   "spec.restartPolicy.maxRestarts"};
  CHECK(paths == want);
  CHECK(v.errors[2].describe() ==
        "spec.minReplicas: Invalid value: 10: must be less than or equal to spec.replicas");
}

TEST_CASE("decoding errors name the field and stop validation", "[api][training-job]") {
  struct Case {
    std::string name;
    json object;
    std::string want_field;
    std::string want_message;
  };
  json base = manifest(kRigid);
  auto with = [&](const std::string& pointer, json value) {
    json copy = base;
    copy[json::json_pointer(pointer)] = std::move(value);
    return copy;
  };
  json no_spec = base;
  no_spec.erase("spec");
  std::vector<Case> cases = {
      {"replicas as a string", with("/spec/replicas", "four"), "spec.replicas",
       "Invalid value: \"string\": spec.replicas in body must be of type integer: \"string\""},
      {"replicas beyond int32", with("/spec/replicas", 3000000000LL), "spec.replicas",
       "Invalid value: 3000000000: must fit in a 32-bit integer"},
      {"an unknown phase", with("/status/phase", "Exploding"), "status.phase",
       "Unsupported value: \"Exploding\": supported values: \"Queued\", \"Admitted\", "
       "\"Running\", \"Suspended\", \"Succeeded\", \"Failed\""},
      {"a bad topology mode", with("/spec/topology/mode", "Sometimes"), "spec.topology.mode",
       "Unsupported value: \"Sometimes\": supported values: \"Required\", \"Preferred\""},
      {"a malformed GPU count",
       with("/spec/template/spec/containers/0/resources/limits/nvidia.com~1gpu", "eight"),
       "spec.template.spec.containers[0].resources.limits[nvidia.com/gpu]",
       "Invalid value: \"eight\": quantities must match the regular expression "
       "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"},
      {"the wrong kind", with("/kind", "Job"), "kind",
       "Unsupported value: \"Job\": supported values: \"TrainingJob\""},
      {"no spec at all", no_spec, "spec", "Required value"},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      auto v = decodeAndValidate<TrainingJob>(tc.object);
      REQUIRE(v.errors.size() >= 1);
      CHECK(v.errors[0].field_path == tc.want_field);
      CHECK(v.errors[0].message == tc.want_message);
    }
  }
}

TEST_CASE("the queue of a TrainingJob cannot change", "[api][training-job]") {
  auto v = decodeAndValidate<TrainingJob>(manifest(kRigid));
  REQUIRE(v.ok());
  TrainingJob moved = v.object;
  moved.spec.queue = "team-b";
  auto errors = moved.validateUpdate(v.object);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].describe() == "spec.queue: Invalid value: \"team-b\": field is immutable");
  TrainingJob scaled = v.object;
  scaled.spec.replicas = 8;
  CHECK(scaled.validateUpdate(v.object).empty());
}

}  // namespace
}  // namespace troupe::api
