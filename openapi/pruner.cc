// Pruning unknown fields and applying defaults, as kube-apiserver does for custom resources.
#include <set>

#include "api/field_error.h"
#include "openapi/schema.h"
#include "openapi/schema_node.h"

namespace troupe::openapi {

using nlohmann::json;
namespace api = troupe::api;

namespace {

const std::set<std::string>& objectMetaFields() {
  static const std::set<std::string> fields = {"name",
                                               "generateName",
                                               "namespace",
                                               "selfLink",
                                               "uid",
                                               "resourceVersion",
                                               "generation",
                                               "creationTimestamp",
                                               "deletionTimestamp",
                                               "deletionGracePeriodSeconds",
                                               "labels",
                                               "annotations",
                                               "ownerReferences",
                                               "finalizers",
                                               "managedFields"};
  return fields;
}

void pruneMetadata(json& metadata, const std::string& path, std::vector<std::string>& removed) {
  if (!metadata.is_object()) return;
  for (auto it = metadata.begin(); it != metadata.end();) {
    if (objectMetaFields().count(it.key())) {
      ++it;
    } else {
      removed.push_back(api::childPath(path, it.key()));
      it = metadata.erase(it);
    }
  }
}

}  // namespace

void pruneValue(const SchemaNode& node, json& value, const std::string& path, bool is_root,
                std::vector<std::string>& removed) {
  if (value.is_array()) {
    if (!node.items) return;
    for (size_t i = 0; i < value.size(); ++i)
      pruneValue(*node.items, value[i], api::indexPath(path, i), false, removed);
    return;
  }
  if (!value.is_object()) return;
  bool object_like = is_root || node.embedded_resource;
  for (auto it = value.begin(); it != value.end();) {
    const std::string key = it.key();
    std::string child_path = api::childPath(path, key);
    if (object_like && key == "metadata") {
      pruneMetadata(*it, child_path, removed);
      ++it;
      continue;
    }
    auto prop = node.properties.find(key);
    if (prop != node.properties.end()) {
      pruneValue(*prop->second, *it, child_path, false, removed);
      ++it;
    } else if (node.additional_properties) {
      pruneValue(*node.additional_properties, *it, child_path, false, removed);
      ++it;
    } else if (node.preserve_unknown_fields || node.additional_properties_any ||
               (object_like && (key == "apiVersion" || key == "kind"))) {
      ++it;
    } else {
      removed.push_back(child_path);
      it = value.erase(it);
    }
  }
}

void defaultValue(const SchemaNode& node, json& value) {
  if (value.is_array()) {
    if (!node.items) return;
    for (auto& item : value) defaultValue(*node.items, item);
    return;
  }
  if (!value.is_object()) return;
  for (const auto& [key, child] : node.properties) {
    auto it = value.find(key);
    if (child->default_value && (it == value.end() || (it->is_null() && !child->nullable))) {
      value[key] = *child->default_value;
    }
    it = value.find(key);
    if (it != value.end()) defaultValue(*child, *it);
  }
  if (node.additional_properties) {
    for (auto& [key, child_value] : value.items()) {
      (void)key;
      defaultValue(*node.additional_properties, child_value);
    }
  }
}

std::vector<std::string> Schema::prune(json& object) const {
  std::vector<std::string> removed;
  pruneValue(*root_, object, "", true, removed);
  return removed;
}

void Schema::applyDefaults(json& object) const { defaultValue(*root_, object); }

}  // namespace troupe::openapi
