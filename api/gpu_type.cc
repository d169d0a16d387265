#include "api/gpu_type.h"

#include <fmt/format.h>

#include "api/field_error.h"
#include "api/json_fields.h"
#include "api/names.h"
#include "api/well_known.h"

namespace troupe::api {

using nlohmann::json;

bool GpuTypeSpec::matches(const std::map<std::string, std::string>& labels) const {
  if (node_labels.empty()) return false;  // refused by validate(); never every node
  for (const auto& [key, value] : node_labels) {
    auto it = labels.find(key);
    if (it == labels.end() || it->second != value) return false;
  }
  return true;
}

GpuType GpuType::fromJson(const json& object, std::vector<Error>& errors) {
  JsonFields f(errors);
  GpuType t;
  if (!object.is_object()) {
    f.typeError("<nil>", object, "object");
    return t;
  }
  f.typeMeta(object, kApiVersion, kGpuTypeKind);
  t.metadata = ObjectMeta::fromJson(object.value("metadata", json()), errors);
  const json* spec = f.object(object, "spec", "spec");
  if (spec == nullptr) {
    if (JsonFields::find(object, "spec") == nullptr) errors.push_back(required("spec"));
    return t;
  }
  t.spec.node_labels = f.stringMap(*spec, "nodeLabels", "spec.nodeLabels");
  if (JsonFields::find(*spec, "nodeLabels") == nullptr)
    errors.push_back(required("spec.nodeLabels"));
  t.spec.tolerations = core::tolerationsFromJson(*spec, "spec.tolerations", errors);
  return t;
}

json GpuType::toJson() const {
  json spec_json = {{"nodeLabels", spec.node_labels}};
  if (!spec.tolerations.empty()) {
    json tolerations = json::array();
    for (const auto& t : spec.tolerations) tolerations.push_back(core::tolerationToJson(t));
    spec_json["tolerations"] = std::move(tolerations);
  }
  return {{"apiVersion", kApiVersion},
          {"kind", kGpuTypeKind},
          {"metadata", metadata.toJson()},
          {"spec", std::move(spec_json)}};
}

std::vector<Error> GpuType::validate() const {
  std::vector<Error> errors;
  validateObjectMeta(metadata, /*namespaced=*/false, errors);
  if (!metadata.name.empty())
    if (auto why = checkGpuTypeName(metadata.name))
      errors.push_back(invalid("metadata.name", metadata.name, *why));
  if (spec.node_labels.empty())
    errors.push_back(
        required("spec.nodeLabels", "a GPU type names its nodes by at least one label"));
  if (spec.node_labels.size() > 16)
    errors.push_back(tooMany("spec.nodeLabels", static_cast<int64_t>(spec.node_labels.size()), 16));
  for (const auto& [key, value] : spec.node_labels) {
    if (auto why = checkQualifiedName(key)) errors.push_back(invalid("spec.nodeLabels", key, *why));
    if (auto why = checkLabelValue(value))
      errors.push_back(invalid(keyPath("spec.nodeLabels", key), value, *why));
  }
  if (spec.tolerations.size() > 16)
    errors.push_back(
        tooMany("spec.tolerations", static_cast<int64_t>(spec.tolerations.size()), 16));
  core::validateTolerations(spec.tolerations, "spec.tolerations", errors);
  return errors;
}

std::vector<Error> GpuType::validateUpdate(const GpuType& old) const {
  std::vector<Error> errors = validate();
  if (metadata.name != old.metadata.name)
    errors.push_back(invalid("metadata.name", metadata.name, "field is immutable"));
  return errors;
}

std::string gpuTypeResource(std::string_view type) {
  return fmt::format("{}/{}", kGpuTypeResourcePrefix, type);
}

std::optional<std::string> checkGpuTypeName(std::string_view name) { return checkDnsLabel(name); }

void validateGpuTypeList(const std::vector<std::string>& types, const std::string& path,
                         std::vector<Error>& errors) {
  if (types.size() > kMaxAcceptedGpuTypes)
    errors.push_back(tooMany(path, static_cast<int64_t>(types.size()),
                             static_cast<int64_t>(kMaxAcceptedGpuTypes)));
  for (size_t i = 0; i < types.size(); ++i) {
    if (auto why = checkGpuTypeName(types[i]))
      errors.push_back(invalid(indexPath(path, i), types[i], *why));
    for (size_t j = 0; j < i; ++j)
      if (types[j] == types[i]) {
        errors.push_back(duplicate(indexPath(path, i), types[i]));
        break;
      }
  }
}

}  // namespace troupe::api
