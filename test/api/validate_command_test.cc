#include <catch2/catch.hpp>

#include "test/support/command.h"
#include "test/support/temp_dir.h"

#include <algorithm>
#include <string>

// `troupe validate` run as a real process on real files.
namespace troupe::api {
namespace {

using Run = testing::CommandResult;

Run troupe(const std::string& args) {
  return testing::runCommand(std::string(TROUPE_EXE) + " " + args);
}

TEST_CASE("troupe validate accepts every example, one line per object", "[api][validate-cmd]") {
  auto run = troupe("validate -f " + std::string(TROUPE_SOURCE_DIR) + "/examples");
  INFO(run.output);
  CHECK(run.exit_code == 0);
  CHECK_THAT(run.output,
             Catch::Contains("trainingjob.troupe.dev/llama-pretrain (ns team-a): valid\n"));
  CHECK_THAT(run.output, Catch::Contains("queue.troupe.dev/org: valid\n"));
  CHECK_THAT(run.output, Catch::Contains("node/gpu-r4-n4: valid\n"));
  CHECK(std::count(run.output.begin(), run.output.end(), '\n') == 34);  // 34 objects
}

TEST_CASE("troupe validate prints the apiserver's words for an invalid object and exits 1",
          "[api][validate-cmd]") {
  testing::TempDir dir;
  auto file = dir.write("bad.yaml", R"(apiVersion: troupe.dev/v1alpha1
kind: TrainingJob
metadata: {name: bad, namespace: team-a}
spec:
  queue: team-a
  replicas: 4
  minReplicas: 10
  template: {spec: {containers: [{name: c, image: i}]}}
---
apiVersion: troupe.dev/v1alpha1
kind: Queue
metadata: {name: ok}
spec: {}
)");
  auto run = troupe("validate -f " + file);
  INFO(run.output);
  CHECK(run.exit_code == 1);
  // The CRD's CEL rule answers first, as on an API server.
  CHECK_THAT(run.output,
             Catch::Contains("trainingjob.troupe.dev/bad (ns team-a): TrainingJob.troupe.dev "
                             "\"bad\" is invalid: spec.minReplicas: Invalid value: \"object\": "
                             "must be less than or equal to spec.replicas\n"));
  CHECK_THAT(run.output, Catch::Contains("queue.troupe.dev/ok: valid\n"));
}

TEST_CASE("troupe validate warns about unknown fields, and refuses them with --strict",
          "[api][validate-cmd]") {
  testing::TempDir dir;
  auto file = dir.write("typo.yaml", R"(apiVersion: troupe.dev/v1alpha1
kind: PodGroup
metadata: {name: g, namespace: team-b}
spec: {minMember: 2, queue: team-b, minMembers: 3}
)");
  auto lenient = troupe("validate -f " + file);
  CHECK(lenient.exit_code == 0);
  CHECK_THAT(lenient.output, Catch::Contains("unknown field \"spec.minMembers\""));
  auto strict = troupe("validate --strict -f " + file);
  CHECK(strict.exit_code == 1);
}

TEST_CASE("troupe validate reports unreadable input instead of crashing", "[api][validate-cmd]") {
  testing::TempDir dir;
  auto file = dir.write("broken.yaml", "kind: Queue\nspec: [\n");
  auto broken = troupe("validate -f " + file);
  CHECK(broken.exit_code == 1);
  CHECK_THAT(broken.output, Catch::Contains("yaml: line"));
  auto missing = troupe("validate -f /nonexistent/troupe.yaml");
  CHECK(missing.exit_code == 1);
  CHECK_THAT(missing.output, Catch::Contains("does not exist"));
}

TEST_CASE("troupe validate refuses a GPU fraction out of range, naming the annotation",
          "[api][validate-cmd]") {
  testing::TempDir dir;
  auto file = dir.write("fraction.yaml", R"(apiVersion: v1
kind: Pod
metadata:
  name: nb
  namespace: team-a
  annotations: {troupe.dev/gpu-fraction: "1.5"}
spec:
  schedulerName: troupe
  containers: [{name: c, image: i}]
)");
  auto run = troupe("validate -f " + file);
  INFO(run.output);
  CHECK(run.exit_code == 1);
  CHECK_THAT(run.output, Catch::Contains("metadata.annotations[troupe.dev/gpu-fraction]: Invalid "
                                         "value: \"1.5\": must be a decimal greater than 0 and "
                                         "less than 1 with at most 3 decimals"));
}

}  // namespace
}  // namespace troupe::api
