#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "api/status.h"
#include "api/yaml.h"
#include "openapi/schema.h"

// The CRD and Status bodies in test/api/testdata/k8s were recorded from a real
// kube-apiserver v1.28.7. Validating the same request bodies with openapi::Schema must give
// the same causes.
namespace troupe::openapi {
namespace {

using nlohmann::json;

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

const std::string kData = std::string(TROUPE_SOURCE_DIR) + "/test/api/testdata/k8s/";

Schema recordedSchema() {
  auto crd = api::parseYaml(readFile(kData + "crd-trainingjobs.yaml"));
  REQUIRE(crd.ok());
  auto schema = Schema::fromJson((*crd)["spec"]["versions"][0]["schema"]["openAPIV3Schema"],
                                 "spec.versions[0].schema.openAPIV3Schema");
  REQUIRE(schema.ok());
  return *schema;
}

json causesOf(const std::string& fixture) {
  return json::parse(readFile(kData + fixture))["details"]["causes"];
}

json request(json spec, std::string name) {
  return {{"apiVersion", "troupe.dev/v1alpha1"},
          {"kind", "TrainingJob"},
          {"metadata", {{"name", std::move(name)}, {"namespace", "fixtures"}}},
          {"spec", std::move(spec)}};
}

json causesFrom(const std::vector<Error>& errors) {
  auto status = api::invalidStatus({"troupe.dev", "trainingjobs", "TrainingJob", "x"}, errors);
  return json::parse(status["details"]["causes"].dump());
}

json sortedCauses(json causes) {
  std::vector<json> list(causes.begin(), causes.end());
  std::sort(list.begin(), list.end(),
            [](const json& a, const json& b) { return a.dump() < b.dump(); });
  return json(list);
}

TEST_CASE("the recorded CRD's schema gives the recorded schema errors", "[openapi][recorded]") {
  auto schema = recordedSchema();
  json body = request({{"queue", ""},
                       {"replicas", 0},
                       {"minReplicas", "two"},
                       {"gpusPerReplica", -1},
                       {"template", "not-an-object"},
                       {"unknownField", true}},
                      "bad-job");
  auto removed = schema.prune(body);
  CHECK(removed == std::vector<std::string>{"spec.unknownField"});
  schema.applyDefaults(body);
  auto errors = schema.validate(body);
  // The real server lists causes in Go map order; compare as sets, the "<nil>" note last.
  CHECK(sortedCauses(causesFrom(errors)) == sortedCauses(causesOf("err-422-schema.json")));
  REQUIRE_FALSE(errors.empty());
  CHECK(errors.back().field_path == "<nil>");
}

TEST_CASE("the recorded CRD's rule gives the recorded CEL error", "[openapi][recorded]") {
  auto schema = recordedSchema();
  json body = request({{"queue", "gpu-high"}, {"replicas", 2}, {"minReplicas", 3}}, "bad-cel");
  schema.applyDefaults(body);
  auto errors = schema.validate(body);
  auto status =
      api::invalidStatus({"troupe.dev", "trainingjobs", "TrainingJob", "bad-cel"}, errors);
  CHECK(api::statusBody(status) == readFile(kData + "err-422-cel.json"));
}

TEST_CASE("the recorded CRD's required fields give the recorded errors", "[openapi][recorded]") {
  auto schema = recordedSchema();
  json body = request(json::object(), "bad-required");
  auto errors = schema.validate(body);
  auto status =
      api::invalidStatus({"troupe.dev", "trainingjobs", "TrainingJob", "bad-required"}, errors);
  CHECK(api::statusBody(status) == readFile(kData + "err-422-required.json"));
}

TEST_CASE("the recorded CRD's default is applied as the server applied it", "[openapi][recorded]") {
  auto schema = recordedSchema();
  json body = request({{"queue", "gpu-high"}, {"replicas", 2}}, "llama-c");
  schema.applyDefaults(body);
  CHECK(body["spec"]["gpusPerReplica"] == 0);
  CHECK(schema.validate(body).empty());
}

}  // namespace
}  // namespace troupe::openapi
