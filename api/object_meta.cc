#include "api/object_meta.h"

#include "api/field_error.h"
#include "api/json_fields.h"
#include "api/names.h"

namespace troupe::api {

using nlohmann::json;

ObjectMeta ObjectMeta::fromJson(const json& metadata, std::vector<Error>& errors) {
  ObjectMeta meta;
  JsonFields f(errors);
  if (metadata.is_null()) return meta;
  if (!metadata.is_object()) {
    f.typeError("metadata", metadata, "object");
    return meta;
  }
  meta.raw = metadata;
  meta.name = f.string(metadata, "name", "metadata.name").value_or("");
  meta.generate_name = f.string(metadata, "generateName", "metadata.generateName").value_or("");
  meta.namespace_ = f.string(metadata, "namespace", "metadata.namespace").value_or("");
  meta.uid = f.string(metadata, "uid", "metadata.uid").value_or("");
  meta.resource_version =
      f.string(metadata, "resourceVersion", "metadata.resourceVersion").value_or("");
  meta.generation = f.int64(metadata, "generation", "metadata.generation").value_or(0);
  meta.creation_timestamp =
      f.string(metadata, "creationTimestamp", "metadata.creationTimestamp").value_or("");
  meta.deletion_timestamp =
      f.string(metadata, "deletionTimestamp", "metadata.deletionTimestamp").value_or("");
  meta.labels = f.stringMap(metadata, "labels", "metadata.labels");
  meta.annotations = f.stringMap(metadata, "annotations", "metadata.annotations");
  meta.finalizers = f.stringList(metadata, "finalizers", "metadata.finalizers");
  if (const json* refs = f.array(metadata, "ownerReferences", "metadata.ownerReferences")) {
    for (size_t i = 0; i < refs->size(); ++i) {
      const json& r = (*refs)[i];
      std::string path = indexPath("metadata.ownerReferences", i);
      if (!r.is_object()) {
        f.typeError(path, r, "object");
        continue;
      }
      OwnerReference ref;
      ref.api_version = f.string(r, "apiVersion", path + ".apiVersion").value_or("");
      ref.kind = f.string(r, "kind", path + ".kind").value_or("");
      ref.name = f.string(r, "name", path + ".name").value_or("");
      ref.uid = f.string(r, "uid", path + ".uid").value_or("");
      ref.controller = f.boolean(r, "controller", path + ".controller").value_or(false);
      ref.block_owner_deletion =
          f.boolean(r, "blockOwnerDeletion", path + ".blockOwnerDeletion").value_or(false);
      meta.owner_references.push_back(std::move(ref));
    }
  }
  return meta;
}

json ObjectMeta::toJson() const {
  json out = raw.is_object() ? raw : json::object();
  auto set = [&](const char* key, const std::string& value) {
    if (value.empty()) {
      out.erase(key);
    } else {
      out[key] = value;
    }
  };
  set("name", name);
  set("generateName", generate_name);
  set("namespace", namespace_);
  set("uid", uid);
  set("resourceVersion", resource_version);
  set("creationTimestamp", creation_timestamp);
  set("deletionTimestamp", deletion_timestamp);
  if (generation != 0) {
    out["generation"] = generation;
  } else {
    out.erase("generation");
  }
  auto setMap = [&](const char* key, const std::map<std::string, std::string>& m) {
    if (m.empty()) {
      out.erase(key);
    } else {
      out[key] = m;
    }
  };
  setMap("labels", labels);
  setMap("annotations", annotations);
  if (finalizers.empty()) {
    out.erase("finalizers");
  } else {
    out["finalizers"] = finalizers;
  }
  if (owner_references.empty()) {
    out.erase("ownerReferences");
  } else {
    json refs = json::array();
    for (const auto& r : owner_references) {
      json ref = {
          {"apiVersion", r.api_version}, {"kind", r.kind}, {"name", r.name}, {"uid", r.uid}};
      if (r.controller) ref["controller"] = true;
      if (r.block_owner_deletion) ref["blockOwnerDeletion"] = true;
      refs.push_back(std::move(ref));
    }
    out["ownerReferences"] = std::move(refs);
  }
  return out;
}

const OwnerReference* ObjectMeta::controllerRef() const {
  for (const auto& r : owner_references)
    if (r.controller) return &r;
  return nullptr;
}

void validateObjectMeta(const ObjectMeta& meta, bool namespaced, std::vector<Error>& errors) {
  if (meta.name.empty() && meta.generate_name.empty()) {
    errors.push_back(required("metadata.name", "name or generateName is required"));
  } else if (!meta.name.empty()) {
    if (auto why = checkDnsSubdomain(meta.name))
      errors.push_back(invalid("metadata.name", meta.name, *why));
  }
  if (namespaced && meta.namespace_.empty()) {
    // The namespace usually comes from the request or kubeconfig; only a bad one is an error.
  } else if (!namespaced && !meta.namespace_.empty()) {
    errors.push_back(forbidden("metadata.namespace", "not allowed on this type"));
  }
  if (!meta.namespace_.empty()) {
    if (auto why = checkDnsLabel(meta.namespace_))
      errors.push_back(invalid("metadata.namespace", meta.namespace_, *why));
  }
  for (const auto& [key, value] : meta.labels) {
    if (auto why = checkQualifiedName(key)) errors.push_back(invalid("metadata.labels", key, *why));
    if (auto why = checkLabelValue(value))
      errors.push_back(invalid(keyPath("metadata.labels", key), value, *why));
  }
  for (const auto& [key, value] : meta.annotations) {
    (void)value;
    if (auto why = checkQualifiedName(key))
      errors.push_back(invalid("metadata.annotations", key, *why));
  }
}

}  // namespace troupe::api
