#include "apiserver/objects/crd_schema_validator.h"

#include "api/field_error.h"
#include "common/log.h"
#include "openapi/schema.h"

namespace troupe::apiserver {

namespace {

// As the apiserver reports a schema violation: "<nil>" for an object-wide one.
Cause schemaCause(const Error& error) {
  return Cause{api::causeReason(api::fieldErrorType(error)), error.message,
               error.field_path.empty() ? "<nil>" : error.field_path};
}

}  // namespace

std::shared_ptr<const openapi::Schema> CrdSchemaValidator::schemaFor(const ResourceKind& kind) {
  std::string key = kind.storageName() + "/" + kind.version;
  std::lock_guard lock(mu_);
  auto it = compiled_.find(key);
  if (it != compiled_.end() && it->second.source == kind.schema) return it->second.schema;
  Compiled compiled{kind.schema, nullptr};
  auto schema = openapi::Schema::fromJson(*kind.schema);
  if (schema) {
    compiled.schema = std::make_shared<const openapi::Schema>(std::move(schema.value()));
  } else {
    log::warn("CRD schema not usable; objects are stored unvalidated",
              {{"resource", kind.storageName()},
               {"version", kind.version},
               {"error", schema.error().describe()}});
  }
  compiled_[key] = compiled;
  return compiled.schema;
}

std::vector<Cause> CrdSchemaValidator::check(const ResourceKind& kind, nlohmann::json& object,
                                             const nlohmann::json* old) {
  if (!kind.schema || !kind.schema->is_object()) return {};
  auto schema = schemaFor(kind);
  if (!schema) return {};  // refused when the CRD was written; nothing to check against
  schema->prune(object);
  schema->applyDefaults(object);
  std::vector<Cause> causes;
  for (const auto& error : schema->validate(object, old)) causes.push_back(schemaCause(error));
  return causes;
}

std::vector<Cause> checkCrdSchemas(const nlohmann::json& crd) {
  std::vector<Cause> causes;
  if (!crd.is_object() || !crd.contains("spec") || !crd["spec"].contains("versions") ||
      !crd["spec"]["versions"].is_array())
    return causes;
  const auto& versions = crd["spec"]["versions"];
  for (std::size_t i = 0; i < versions.size(); ++i) {
    const auto& v = versions[i];
    if (!v.is_object() || !v.contains("schema") || !v["schema"].contains("openAPIV3Schema"))
      continue;
    std::string path = "spec.versions[" + std::to_string(i) + "].schema.openAPIV3Schema";
    for (const auto& error : openapi::Schema::check(v["schema"]["openAPIV3Schema"], path))
      causes.push_back(schemaCause(error));
  }
  return causes;
}

}  // namespace troupe::apiserver
