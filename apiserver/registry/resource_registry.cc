#include "apiserver/registry/resource_registry.h"

#include <algorithm>
#include <mutex>

#include "common/json_member.h"

namespace troupe::apiserver {

namespace {

bool lessKind(const ResourceKind& a, const ResourceKind& b) {
  return std::tie(a.group, a.version, a.resource) < std::tie(b.group, b.version, b.resource);
}

std::string stringAt(const nlohmann::json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::vector<std::string> stringsAt(const nlohmann::json& object, const char* key) {
  std::vector<std::string> out;
  auto it = object.find(key);
  if (it == object.end() || !it->is_array()) return out;
  for (const auto& v : *it)
    if (v.is_string()) out.push_back(v.get<std::string>());
  return out;
}

}  // namespace

ResourceRegistry::ResourceRegistry() : builtin_(builtinKinds()) {}

std::optional<ResourceKind> ResourceRegistry::find(const std::string& group,
                                                   const std::string& version,
                                                   const std::string& resource) const {
  std::shared_lock lock(mu_);
  for (const auto& k : builtin_)
    if (k.group == group && k.version == version && k.resource == resource) return k;
  for (const auto& [name, kinds] : custom_)
    for (const auto& k : kinds)
      if (k.group == group && k.version == version && k.resource == resource) return k;
  return std::nullopt;
}

std::optional<ResourceKind> ResourceRegistry::findByStorageName(const std::string& name) const {
  std::shared_lock lock(mu_);
  for (const auto& k : builtin_)
    if (k.storageName() == name) return k;
  for (const auto& [crd, kinds] : custom_)
    for (const auto& k : kinds)
      if (k.storageName() == name) return k;
  return std::nullopt;
}

std::vector<ResourceKind> ResourceRegistry::all() const {
  std::shared_lock lock(mu_);
  std::vector<ResourceKind> out = builtin_;
  for (const auto& [name, kinds] : custom_) out.insert(out.end(), kinds.begin(), kinds.end());
  std::sort(out.begin(), out.end(), lessKind);
  return out;
}

std::uint64_t ResourceRegistry::generation() const {
  std::shared_lock lock(mu_);
  return generation_;
}

Status ResourceRegistry::applyCrd(const nlohmann::json& crd) {
  auto kinds = kindsFromCrd(crd);
  if (!kinds) return kinds.error();
  std::unique_lock lock(mu_);
  custom_[crd["metadata"]["name"].get<std::string>()] = std::move(kinds.value());
  ++generation_;
  return {};
}

void ResourceRegistry::removeCrd(const std::string& crd_name) {
  std::unique_lock lock(mu_);
  custom_.erase(crd_name);
  ++generation_;
}

Result<std::vector<ResourceKind>> kindsFromCrd(const nlohmann::json& crd) {
  if (!crd.is_object() || !crd.contains("spec") || !crd["spec"].is_object())
    return makeError(ErrorCode::Invalid, "spec", "Required value");
  const auto& spec = crd["spec"];
  const nlohmann::json& names = objectMember(spec, "names");
  std::string group = stringAt(spec, "group");
  std::string plural = stringAt(names, "plural");
  std::string kind_name = stringAt(names, "kind");
  if (group.empty()) return makeError(ErrorCode::Invalid, "spec.group", "Required value");
  if (plural.empty()) return makeError(ErrorCode::Invalid, "spec.names.plural", "Required value");
  if (kind_name.empty()) return makeError(ErrorCode::Invalid, "spec.names.kind", "Required value");
  std::string name = objectMember(crd, "metadata").value("name", "");
  if (name != plural + "." + group) {
    return makeError(ErrorCode::Invalid, "metadata.name",
                     "Invalid value: \"" + name + "\": must be spec.names.plural+\".\"+spec.group");
  }
  std::string scope = stringAt(spec, "scope");
  if (scope != "Namespaced" && scope != "Cluster") {
    return makeError(
        ErrorCode::Invalid, "spec.scope",
        "Unsupported value: \"" + scope + "\": supported values: \"Cluster\", \"Namespaced\"");
  }
  auto versions = spec.value("versions", nlohmann::json::array());
  if (!versions.is_array() || versions.empty())
    return makeError(ErrorCode::Invalid, "spec.versions",
                     "Required value: must have exactly one version marked as storage version");

  std::vector<ResourceKind> kinds;
  for (std::size_t i = 0; i < versions.size(); ++i) {
    const auto& v = versions[i];
    if (!v.is_object()) continue;
    if (!v.value("served", true)) continue;
    ResourceKind k;
    k.group = group;
    k.version = stringAt(v, "name");
    if (k.version.empty())
      return makeError(ErrorCode::Invalid, "spec.versions[" + std::to_string(i) + "].name",
                       "Required value");
    k.resource = plural;
    k.singular = stringAt(names, "singular");
    if (k.singular.empty()) {
      k.singular = kind_name;
      std::transform(k.singular.begin(), k.singular.end(), k.singular.begin(), ::tolower);
    }
    k.kind = kind_name;
    k.list_kind = stringAt(names, "listKind");
    if (k.list_kind.empty()) k.list_kind = kind_name + "List";
    k.namespaced = scope == "Namespaced";
    k.short_names = stringsAt(names, "shortNames");
    k.categories = stringsAt(names, "categories");
    k.custom = true;
    k.bumps_generation = true;
    k.verbs = {"delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"};
    const nlohmann::json& subresources = objectMember(v, "subresources");
    k.has_status = subresources.contains("status");
    if (subresources.contains("scale") && subresources["scale"].is_object()) {
      const auto& scale = subresources["scale"];
      k.has_scale = true;
      k.scale_spec_path = scale.value("specReplicasPath", ".spec.replicas");
      k.scale_status_path = scale.value("statusReplicasPath", ".status.replicas");
      k.scale_selector_path = scale.value("labelSelectorPath", "");
    }
    for (const auto& c : v.value("additionalPrinterColumns", nlohmann::json::array())) {
      PrinterColumn column;
      column.name = stringAt(c, "name");
      column.type = stringAt(c, "type");
      column.format = stringAt(c, "format");
      column.json_path = stringAt(c, "jsonPath");
      column.priority = c.value("priority", 0);
      column.description = stringAt(c, "description");
      if (column.description.empty())
        column.description =
            "Custom resource definition column (in JSONPath format): " + column.json_path;
      k.columns.push_back(column);
    }
    if (k.columns.empty()) {
      PrinterColumn column;
      column.name = "Age";
      column.type = "date";
      column.json_path = ".metadata.creationTimestamp";
      column.description =
          "Custom resource definition column (in JSONPath format): .metadata.creationTimestamp";
      k.columns.push_back(column);
    }
    if (v.contains("schema") && v["schema"].contains("openAPIV3Schema"))
      k.schema = std::make_shared<const nlohmann::json>(v["schema"]["openAPIV3Schema"]);
    kinds.push_back(std::move(k));
  }
  return kinds;
}

}  // namespace troupe::apiserver
