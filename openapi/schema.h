#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"

namespace troupe::openapi {

struct SchemaNode;

// A Kubernetes structural OpenAPI v3 schema, as found in a CustomResourceDefinition's
// `openAPIV3Schema`, ready to validate, default and prune custom resources the way
// kube-apiserver does. Value type: cheap to copy (the tree is shared and immutable), no I/O.
//
//   auto schema = Schema::fromJson(crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]);
//   schema->prune(obj);          // drop unknown fields (returns their paths for warnings)
//   schema->applyDefaults(obj);  // fill `default`s
//   auto errors = schema->validate(obj, old_obj);  // Kubernetes-shaped field errors
class Schema {
 public:
  // Builds a schema, refusing one that is not structural or whose x-kubernetes-validations
  // rules fall outside the supported CEL subset. `path` is where the schema sits in its
  // CRD and prefixes error paths (`spec.versions[0].schema.openAPIV3Schema.properties[spec]`).
  // On failure the Error is the first problem; check() lists them all.
  static Result<Schema> fromJson(const nlohmann::json& schema,
                                 std::string_view path = "spec.validation.openAPIV3Schema");
  // Every reason the schema cannot be used, as kube-apiserver words them when it refuses a
  // CRD; empty when fromJson would succeed.
  static std::vector<Error> check(const nlohmann::json& schema,
                                  std::string_view path = "spec.validation.openAPIV3Schema");

  // Validates a whole custom resource (the root is an object with apiVersion, kind and
  // metadata, which the schema does not govern). With `old_object`, transition rules
  // (those using oldSelf) are evaluated too. Errors come in a stable order: schema errors
  // in document order of the schema's properties, then list-type errors, then CEL rules
  // (skipped, with the apiserver's "<nil>" note, when a blocking schema error exists).
  std::vector<Error> validate(const nlohmann::json& object,
                              const nlohmann::json* old_object = nullptr) const;

  // Sets missing (or null, non-nullable) fields that have a `default`, deepest last, the
  // way the apiserver defaults on read and write. Parents are never created.
  void applyDefaults(nlohmann::json& object) const;

  // Removes fields the schema does not know (respecting x-kubernetes-preserve-unknown-fields
  // and embedded resources) and returns their paths ("spec.unknownField") in order.
  std::vector<std::string> prune(nlohmann::json& object) const;

  // Whether any node carries x-kubernetes-validations rules.
  bool hasValidationRules() const;

 private:
  explicit Schema(std::shared_ptr<const SchemaNode> root) : root_(std::move(root)) {}
  std::shared_ptr<const SchemaNode> root_;
};

}  // namespace troupe::openapi
