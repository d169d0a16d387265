#include "apiserver/objects/object_shape.h"

#include <string>

namespace troupe::apiserver {

namespace {

using json = nlohmann::json;

enum class Want { String, Integer, Bool, Object, StringMap, Strings, Objects };

const char* describe(Want want) {
  switch (want) {
    case Want::String: return "a string";
    case Want::Integer: return "an integer";
    case Want::Bool: return "a boolean";
    case Want::Object: return "an object";
    case Want::StringMap: return "an object of strings";
    case Want::Strings: return "a list of strings";
    case Want::Objects: return "a list of objects";
  }
  return "a value";
}

bool fits(const json& value, Want want) {
  if (value.is_null()) return true;  // unset, as Go's decoder reads null
  switch (want) {
    case Want::String: return value.is_string();
    case Want::Integer: return value.is_number_integer();
    case Want::Bool: return value.is_boolean();
    case Want::Object: return value.is_object();
    case Want::StringMap:
      if (!value.is_object()) return false;
      for (const auto& item : value) {
        if (!item.is_string() && !item.is_null()) return false;
      }
      return true;
    case Want::Strings:
      if (!value.is_array()) return false;
      for (const auto& item : value)
        if (!item.is_string()) return false;
      return true;
    case Want::Objects:
      if (!value.is_array()) return false;
      for (const auto& item : value)
        if (!item.is_object()) return false;
      return true;
  }
  return false;
}

struct FieldType {
  const char* name;
  Want want;
};

// The first field of `fields` in `object` whose value has the wrong type, as
// "<path>.<name>: expected ..., got ...".
std::optional<std::string> firstMismatch(const json& object, const std::string& path,
                                         std::initializer_list<FieldType> fields) {
  if (!object.is_object()) return std::nullopt;
  for (const auto& f : fields) {
    auto it = object.find(f.name);
    if (it == object.end() || fits(*it, f.want)) continue;
    std::string got = it->dump(-1, ' ', false, json::error_handler_t::replace);
    if (got.size() > 64) got = got.substr(0, 64) + "...";
    return (path.empty() ? "" : path + ".") + f.name + ": expected " + describe(f.want) + ", got " +
           got;
  }
  return std::nullopt;
}

std::optional<std::string> metadataMismatch(const json& object) {
  if (auto m = firstMismatch(
          object, "",
          {{"apiVersion", Want::String}, {"kind", Want::String}, {"metadata", Want::Object}}))
    return m;
  auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return std::nullopt;
  if (auto m = firstMismatch(*meta, "metadata",
                             {{"name", Want::String},
                              {"generateName", Want::String},
                              {"namespace", Want::String},
                              {"uid", Want::String},
                              {"resourceVersion", Want::String},
                              {"creationTimestamp", Want::String},
                              {"deletionTimestamp", Want::String},
                              {"selfLink", Want::String},
                              {"generation", Want::Integer},
                              {"deletionGracePeriodSeconds", Want::Integer},
                              {"labels", Want::StringMap},
                              {"annotations", Want::StringMap},
                              {"finalizers", Want::Strings},
                              {"ownerReferences", Want::Objects},
                              {"managedFields", Want::Objects}}))
    return m;
  for (const char* list : {"ownerReferences", "managedFields"}) {
    auto it = meta->find(list);
    if (it == meta->end() || !it->is_array()) continue;
    for (std::size_t i = 0; i < it->size(); ++i) {
      const std::string path = std::string("metadata.") + list + "[" + std::to_string(i) + "]";
      if (auto m = firstMismatch((*it)[i], path,
                                 {{"apiVersion", Want::String},
                                  {"kind", Want::String},
                                  {"name", Want::String},
                                  {"uid", Want::String},
                                  {"controller", Want::Bool},
                                  {"blockOwnerDeletion", Want::Bool},
                                  {"manager", Want::String},
                                  {"operation", Want::String},
                                  {"time", Want::String},
                                  {"fieldsType", Want::String},
                                  {"fieldsV1", Want::Object},
                                  {"subresource", Want::String}}))
        return m;
    }
  }
  return std::nullopt;
}

std::optional<std::string> podMismatch(const json& pod) {
  if (auto m = firstMismatch(pod, "", {{"spec", Want::Object}, {"status", Want::Object}})) return m;
  auto spec = pod.find("spec");
  if (spec != pod.end()) {
    if (auto m = firstMismatch(*spec, "spec",
                               {{"nodeName", Want::String},
                                {"schedulerName", Want::String},
                                {"priorityClassName", Want::String},
                                {"serviceAccountName", Want::String},
                                {"restartPolicy", Want::String},
                                {"priority", Want::Integer},
                                {"terminationGracePeriodSeconds", Want::Integer},
                                {"containers", Want::Objects},
                                {"initContainers", Want::Objects}}))
      return m;
    for (const char* list : {"containers", "initContainers"}) {
      auto it = spec->find(list);
      if (it == spec->end() || !it->is_array()) continue;
      for (std::size_t i = 0; i < it->size(); ++i) {
        if (auto m = firstMismatch(
                (*it)[i], std::string("spec.") + list + "[" + std::to_string(i) + "]",
                {{"name", Want::String}, {"image", Want::String}, {"resources", Want::Object}}))
          return m;
      }
    }
  }
  auto status = pod.find("status");
  if (status != pod.end()) {
    if (auto m = firstMismatch(*status, "status",
                               {{"phase", Want::String}, {"conditions", Want::Objects}}))
      return m;
  }
  return std::nullopt;
}

}  // namespace

std::optional<ApiError> checkObjectShape(const ResourceKind& kind, const json& object) {
  auto mismatch = metadataMismatch(object);
  if (!mismatch && kind.group.empty() && kind.kind == "Pod") mismatch = podMismatch(object);
  if (!mismatch) return std::nullopt;
  return badRequest(kind.kind + " in version \"" + kind.version + "\" cannot be handled as a " +
                    kind.kind + ": " + *mismatch);
}

}  // namespace troupe::apiserver
