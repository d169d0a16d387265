#pragma once

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include "api/yaml.h"
#include "openapi/schema.h"

// Loading the CRDs in crds/ for tests that compare them with api/.
namespace troupe::api::testing {

inline std::string readFile(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline nlohmann::json loadCrd(const std::string& file) {
  auto doc = parseYaml(readFile(std::string(TROUPE_SOURCE_DIR) + "/crds/" + file));
  REQUIRE(doc.ok());
  return *doc;
}

inline openapi::Schema crdSchema(const std::string& file) {
  auto crd = loadCrd(file);
  auto schema = openapi::Schema::fromJson(crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"],
                                          "spec.versions[0].schema.openAPIV3Schema");
  if (!schema.ok()) FAIL(file << ": " << schema.error().describe());
  return *schema;
}

// The apiserver's pipeline for a custom resource: prune, default, validate.
inline std::vector<Error> schemaErrors(const openapi::Schema& schema, nlohmann::json object,
                                       const nlohmann::json* old_object = nullptr) {
  schema.prune(object);
  schema.applyDefaults(object);
  if (old_object == nullptr) return schema.validate(object);
  nlohmann::json old_copy = *old_object;
  schema.prune(old_copy);
  schema.applyDefaults(old_copy);
  return schema.validate(object, &old_copy);
}

}  // namespace troupe::api::testing
