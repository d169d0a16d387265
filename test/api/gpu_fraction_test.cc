#include <catch2/catch.hpp>

#include "api/core/pod.h"
#include "api/gpu_fraction.h"
#include "api/training_job.h"
#include "api/validated.h"
#include "api/yaml.h"
#include "test/api/manifest.h"

namespace troupe::api {
namespace {

using testing::manifest;

TEST_CASE("troupe.dev/gpu-fraction reads a decimal in (0, 1) with at most 3 decimals",
          "[api][gpu-fraction]") {
  struct Case {
    std::string text;
    std::int32_t want_milli;  // 0: refused
  };
  const std::vector<Case> cases = {
      {"0.5", 500},  {".25", 250}, {"0.125", 125}, {"0.001", 1}, {"0.999", 999},
      {"0.50", 500}, {"1", 0},     {"1.0", 0},     {"0", 0},     {"0.0", 0},
      {"0.000", 0},  {"1.5", 0},   {"0.1234", 0},  {"-0.5", 0},  {"0.5x", 0},
      {"", 0},       {"0.", 0},    {"half", 0},    {"00.5", 0},  {"0,5", 0},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION("\"" << tc.text << "\"") {
      auto milli = parseGpuFraction(tc.text, "metadata.annotations[troupe.dev/gpu-fraction]");
      if (tc.want_milli > 0) {
        REQUIRE(milli.ok());
        CHECK(*milli == tc.want_milli);
      } else {
        REQUIRE_FALSE(milli.ok());
        CHECK(milli.error().field_path == "metadata.annotations[troupe.dev/gpu-fraction]");
      }
    }
  }
}

TEST_CASE("a pod with a GPU fraction and nvidia.com/gpu as well is refused, naming the field",
          "[api][gpu-fraction]") {
  auto v = decodeAndValidate<core::Pod>(manifest(R"(
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: ml, annotations: {troupe.dev/gpu-fraction: "0.5"}}
spec:
  containers:
  - {name: c, image: i, resources: {limits: {nvidia.com/gpu: 1}}}
)"));
  REQUIRE(v.errors.size() == 1);
  CHECK(v.errors[0].describe() ==
        "metadata.annotations[troupe.dev/gpu-fraction]: Invalid value: \"0.5\": a pod asking for "
        "a fraction of one GPU must not also ask for nvidia.com/gpu (in "
        "spec.containers[*].resources)");
  auto ok = decodeAndValidate<core::Pod>(manifest(R"(
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: ml, annotations: {troupe.dev/gpu-fraction: "0.5"}}
spec:
  containers:
  - {name: c, image: i}
)"));
  CHECK(ok.errors.empty());
}

TEST_CASE("a TrainingJob's pod template is checked for its GPU fraction", "[api][gpu-fraction]") {
  auto v = decodeAndValidate<TrainingJob>(manifest(R"(
apiVersion: troupe.dev/v1alpha1
kind: TrainingJob
metadata: {name: notebooks, namespace: team-a}
spec:
  queue: team-a
  replicas: 2
  template:
    metadata:
      annotations: {troupe.dev/gpu-fraction: "1.5"}
    spec:
      containers:
      - {name: c, image: i}
)"));
  REQUIRE(v.errors.size() == 1);
  CHECK(v.errors[0].field_path == "spec.template.metadata.annotations[troupe.dev/gpu-fraction]");
  CHECK(v.errors[0].message ==
        "Invalid value: \"1.5\": must be a decimal greater than 0 and less than 1 with at most 3 "
        "decimals, e.g. \"0.5\"");
}

}  // namespace
}  // namespace troupe::api
