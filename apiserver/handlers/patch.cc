#include "apiserver/handlers/patch.h"

#include <deque>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "apiserver/handlers/body_limits.h"
#include "common/json_parse.h"
#include "common/rfc3339.h"

namespace troupe::apiserver {

namespace {

using json = nlohmann::json;

// Lists that Kubernetes' strategic merge patch merges element-wise, by this key.
std::string mergeKeyFor(const std::string& field, const json& sample) {
  static const std::vector<std::pair<std::string, std::string>> table = {
      {"containers", "name"},
      {"initContainers", "name"},
      {"ephemeralContainers", "name"},
      {"env", "name"},
      {"volumes", "name"},
      {"volumeMounts", "mountPath"},
      {"conditions", "type"},
      {"taints", "key"},
      {"ownerReferences", "uid"},
      {"imagePullSecrets", "name"},
      {"hostAliases", "ip"},
      {"addresses", "type"},
      {"containerStatuses", "name"},
      {"readinessGates", "conditionType"}};
  if (field == "ports") return sample.contains("containerPort") ? "containerPort" : "port";
  for (const auto& [name, key] : table)
    if (name == field) return key;
  return "";
}

bool isPrimitiveMergeList(const std::string& field) { return field == "finalizers"; }

json stripDirectives(const json& value) {
  if (value.is_object()) {
    json out = json::object();
    for (auto it = value.begin(); it != value.end(); ++it) {
      if (it.key().rfind("$", 0) == 0) continue;
      out[it.key()] = stripDirectives(it.value());
    }
    return out;
  }
  if (value.is_array()) {
    json out = json::array();
    for (const auto& v : value) out.push_back(stripDirectives(v));
    return out;
  }
  return value;
}

json strategicMerge(json target, const json& patch);

json mergeList(const std::string& field, const json& target, const json& patch) {
  if (!target.is_array()) return stripDirectives(patch);
  if (isPrimitiveMergeList(field)) {
    json out = target;
    std::set<json> present(out.begin(), out.end());
    for (const auto& v : patch)
      if (present.insert(v).second) out.push_back(v);
    return out;
  }
  std::string key = patch.empty() ? "" : mergeKeyFor(field, patch.front());
  if (key.empty()) return stripDirectives(patch);
  // Elements by merge key (the first of equal keys first), so that a patch of n elements
  // into a list of m costs n log m, not n times m.
  json out = target;
  std::map<json, std::deque<std::size_t>> by_key;
  for (std::size_t i = 0; i < out.size(); ++i)
    if (out[i].is_object() && out[i].contains(key)) by_key[out[i][key]].push_back(i);
  std::vector<bool> deleted(out.size(), false);
  for (const auto& element : patch) {
    if (!element.is_object() || !element.contains(key)) continue;
    auto match = by_key.find(element[key]);
    bool found = match != by_key.end() && !match->second.empty();
    if (element.value("$patch", "") == "delete") {
      if (found) {
        deleted[match->second.front()] = true;
        match->second.pop_front();
      }
      continue;
    }
    if (found) {
      json& merged = out[match->second.front()];
      merged = strategicMerge(merged, element);
    } else {
      out.push_back(stripDirectives(element));
      deleted.push_back(false);
      by_key[element[key]].push_back(out.size() - 1);
    }
  }
  json kept = json::array();
  for (std::size_t i = 0; i < out.size(); ++i)
    if (!deleted[i]) kept.push_back(std::move(out[i]));
  return kept;
}

json strategicMerge(json target, const json& patch) {
  if (!patch.is_object()) return patch;
  if (patch.value("$patch", "") == "replace") return stripDirectives(patch);
  if (!target.is_object()) target = json::object();
  for (auto it = patch.begin(); it != patch.end(); ++it) {
    const std::string& key = it.key();
    const json& value = it.value();
    if (key.rfind("$deleteFromPrimitiveList/", 0) == 0) {
      std::string field = key.substr(std::string("$deleteFromPrimitiveList/").size());
      if (target.contains(field) && target[field].is_array() && value.is_array()) {
        const std::set<json> dropped(value.begin(), value.end());
        json kept = json::array();
        for (const auto& v : target[field])
          if (!dropped.count(v)) kept.push_back(v);
        target[field] = kept;
      }
      continue;
    }
    if (key.rfind("$", 0) == 0) continue;  // $setElementOrder, $retainKeys, $patch
    if (value.is_null()) {
      target.erase(key);
    } else if (value.is_object()) {
      if (value.value("$patch", "") == "delete") {
        target.erase(key);
      } else {
        target[key] = strategicMerge(target.contains(key) ? target[key] : json::object(), value);
      }
    } else if (value.is_array()) {
      target[key] = mergeList(key, target.contains(key) ? target[key] : json(), value);
    } else {
      target[key] = value;
    }
  }
  return target;
}

// ---- server-side apply ----

using Path = std::vector<std::string>;

// The most field path segments one apply may list (its own fields' and every manager's):
// a set nested n levels deep with m leaves lists n times m segments, so a body of a few
// hundred KB could otherwise ask for gigabytes.
constexpr std::size_t kMaxFieldPathSegments = 2'000'000;

// The leaf paths of a FieldsV1 set, counting their segments against `budget`; false when
// the budget runs out. Entries that are not objects (a client may write managedFields) are
// leaves.
bool leafPaths(const json& fields, Path& prefix, std::vector<Path>& out, std::size_t& budget) {
  for (auto it = fields.begin(); it != fields.end(); ++it) {
    if (it.key() == ".") continue;
    prefix.push_back(it.key().size() > 2 ? it.key().substr(2) : std::string());  // drop "f:"
    bool has_children = false;
    if (it.value().is_object())
      for (auto c = it.value().begin(); c != it.value().end(); ++c)
        if (c.key() != ".") has_children = true;
    if (has_children) {
      if (!leafPaths(it.value(), prefix, out, budget)) return false;
    } else {
      if (budget < prefix.size()) return false;
      budget -= prefix.size();
      out.push_back(prefix);
    }
    prefix.pop_back();
  }
  return true;
}

std::optional<std::vector<Path>> leafPaths(const json& fields, std::size_t& budget) {
  std::vector<Path> out;
  Path prefix;
  if (fields.is_object() && !leafPaths(fields, prefix, out, budget)) return std::nullopt;
  return out;
}

const json* at(const json& object, const Path& path) {
  const json* node = &object;
  for (const auto& part : path) {
    if (!node->is_object()) return nullptr;
    auto it = node->find(part);
    if (it == node->end()) return nullptr;
    node = &*it;
  }
  return node;
}

void eraseAt(json& object, const Path& path) {
  json* node = &object;
  for (std::size_t i = 0; i + 1 < path.size(); ++i) {
    if (!node->is_object() || !node->contains(path[i])) return;
    node = &(*node)[path[i]];
  }
  if (node->is_object()) node->erase(path.back());
}

json fieldsFromPaths(const std::vector<Path>& paths) {
  json out = json::object();
  for (const auto& p : paths) {
    json* node = &out;
    for (std::size_t i = 0; i < p.size(); ++i) {
      json& child = (*node)["f:" + p[i]];
      if (!child.is_object()) child = json::object();
      if (i + 1 < p.size()) child["."] = json::object();
      node = &child;
    }
  }
  return out;
}

json applyMerge(json target, const json& config) {
  if (!config.is_object() || !target.is_object()) return config;
  for (auto it = config.begin(); it != config.end(); ++it) {
    if (it.value().is_object() && target.contains(it.key()) && target[it.key()].is_object()) {
      target[it.key()] = applyMerge(target[it.key()], it.value());
    } else if (it.value().is_array() && target.contains(it.key())) {
      target[it.key()] = mergeList(it.key(), target[it.key()], it.value());
    } else {
      target[it.key()] = it.value();
    }
  }
  return target;
}

std::string pathText(const Path& p) {
  std::string out;
  for (const auto& part : p) out += "." + part;
  return out;
}

}  // namespace

std::optional<PatchType> patchTypeOf(const std::string& content_type) {
  std::string type = content_type.substr(0, content_type.find(';'));
  if (type == "application/merge-patch+json") return PatchType::Merge;
  if (type == "application/json-patch+json") return PatchType::Json;
  if (type == "application/strategic-merge-patch+json") return PatchType::Strategic;
  if (type == "application/apply-patch+yaml" || type == "application/apply-patch+json")
    return PatchType::Apply;
  return std::nullopt;
}

ApiResult<json> applyMergePatch(const json& target, const json& patch) {
  json result = target;
  result.merge_patch(patch);
  return result;
}

ApiResult<json> applyJsonPatch(const json& target, const json& patch) {
  if (!patch.is_array()) return badRequest("json patch must be a JSON array of operations");
  if (patch.size() > kMaxJsonPatchOperations) {
    return statusError(413, "RequestEntityTooLarge",
                       "Request entity too large: The allowed maximum operations in a JSON patch "
                       "is " +
                           std::to_string(kMaxJsonPatchOperations) + ", got " +
                           std::to_string(patch.size()));
  }
  auto rejected = [](const std::string& why) {
    return statusError(422, "Invalid",
                       "the server rejected our request due to an error in our request: " + why);
  };
  // One operation at a time, so that what `copy` operations add is counted before each
  // copy is made: a few of them doubling a value would otherwise build gigabytes.
  json result = target;
  std::size_t copied = 0;
  try {
    for (const auto& operation : patch) {
      if (operation.is_object() && operation.value("op", "") == "copy" &&
          operation.contains("from") && operation["from"].is_string()) {
        const json& source = result.at(json::json_pointer(operation["from"].get<std::string>()));
        copied += compactJsonSize(source, kMaxJsonPatchCopyBytes);
        if (copied > kMaxJsonPatchCopyBytes) {
          return rejected(
              "Unable to complete the copy, the accumulated size increase of copy "
              "exceeds the limit " +
              std::to_string(kMaxJsonPatchCopyBytes));
        }
      }
      result.patch_inplace(json::array({operation}));
    }
  } catch (const json::exception& e) {
    return rejected(e.what());
  }
  return result;
}

json applyStrategicPatch(const json& target, const json& patch) {
  return strategicMerge(target, patch);
}

json fieldSetOf(const json& object) {
  json trimmed = object;
  trimmed.erase("apiVersion");
  trimmed.erase("kind");
  if (trimmed.contains("metadata")) {
    json meta = json::object();
    for (const char* keep : {"labels", "annotations"})
      if (trimmed["metadata"].contains(keep)) meta[keep] = trimmed["metadata"][keep];
    if (meta.empty()) {
      trimmed.erase("metadata");
    } else {
      trimmed["metadata"] = meta;
    }
  }
  std::function<json(const json&)> build = [&](const json& value) {
    json out = json::object();
    for (auto it = value.begin(); it != value.end(); ++it) {
      if (it.value().is_object() && !it.value().empty()) {
        json child = build(it.value());
        child["."] = json::object();
        out["f:" + it.key()] = child;
      } else {
        out["f:" + it.key()] = json::object();
      }
    }
    return out;
  };
  json result = build(trimmed);
  // Top-level objects carry no "." marker in the real server's output.
  for (auto it = result.begin(); it != result.end(); ++it) {
    if (it.key() == "f:metadata") it.value().erase(".");
  }
  return result;
}

ApiResult<json> serverSideApply(const json& current, const json& config,
                                const ApplyRequest& request) {
  if (!config.is_object()) return badRequest("apply patch must be an object");
  json applied = config;
  if (request.subresource == "status") {
    json only = json::object();
    if (applied.contains("status")) only["status"] = applied["status"];
    applied = only;
  } else if (!current.is_null()) {
    applied.erase("status");
  }
  json fields = fieldSetOf(applied);
  std::size_t budget = kMaxFieldPathSegments;
  const auto too_many = [] {
    return statusError(413, "RequestEntityTooLarge",
                       "Request entity too large: the apply and the object's managed fields name "
                       "more than " +
                           std::to_string(kMaxFieldPathSegments) + " field path segments");
  };
  auto ours_list = leafPaths(fields, budget);
  if (!ours_list) return too_many();
  const std::set<Path> ours(ours_list->begin(), ours_list->end());

  json base = current.is_null() ? json::object() : current;
  json managed = base.contains("metadata") && base["metadata"].is_object() &&
                         base["metadata"].contains("managedFields") &&
                         base["metadata"]["managedFields"].is_array()
                     ? base["metadata"]["managedFields"]
                     : json::array();
  auto isOurs = [&](const json& entry) {
    return entry.value("manager", "") == request.manager &&
           entry.value("subresource", "") == request.subresource &&
           entry.value("operation", "") == "Apply";
  };

  // Conflicts: another Apply manager owns a field we set to a different value.
  std::vector<std::pair<std::string, Path>> conflicts;
  std::set<Path> others_paths;
  std::vector<Path> previous_ours;
  std::vector<std::vector<Path>> paths_of(managed.size());
  for (std::size_t i = 0; i < managed.size(); ++i) {
    json& entry = managed[i];
    if (!entry.is_object()) entry = json::object();
    std::string manager = entry.value("manager", "");
    auto paths = leafPaths(entry.value("fieldsV1", json::object()), budget);
    if (!paths) return too_many();
    paths_of[i] = std::move(*paths);
    if (isOurs(entry)) {
      previous_ours = paths_of[i];
      continue;
    }
    others_paths.insert(paths_of[i].begin(), paths_of[i].end());
    if (entry.value("operation", "") != "Apply") continue;
    for (const auto& p : paths_of[i]) {
      if (!ours.count(p)) continue;
      const json* mine = at(applied, p);
      const json* theirs = at(base, p);
      if (mine && theirs && *mine != *theirs) conflicts.emplace_back(manager, p);
    }
  }
  if (!conflicts.empty() && !request.force) {
    std::string message = "Apply failed with " + std::to_string(conflicts.size()) + " conflict" +
                          (conflicts.size() == 1 ? "" : "s") + ": ";
    json causes = json::array();
    for (std::size_t i = 0; i < conflicts.size(); ++i) {
      const auto& [manager, path] = conflicts[i];
      std::string what = "conflict with \"" + manager + "\"";
      message += (i ? "\n" : "") + what + ": " + pathText(path);
      causes.push_back(
          {{"reason", "FieldManagerConflict"}, {"message", what}, {"field", pathText(path)}});
    }
    return statusError(409, "Conflict", message, {{"causes", causes}});
  }

  json result = applyMerge(base, applied);
  // Fields this manager applied before and no longer applies, and nobody else owns, go.
  for (const auto& p : previous_ours)
    if (!ours.count(p) && !others_paths.count(p)) eraseAt(result, p);

  // Ownership: forced fields leave their previous owners.
  const std::set<std::pair<std::string, Path>> taken(conflicts.begin(), conflicts.end());
  json new_managed = json::array();
  for (std::size_t i = 0; i < managed.size(); ++i) {
    json& entry = managed[i];
    if (isOurs(entry)) continue;
    std::string manager = entry.value("manager", "");
    const auto& paths = paths_of[i];
    std::vector<Path> kept;
    for (const auto& p : paths)
      if (!taken.count({manager, p})) kept.push_back(p);
    if (kept.empty()) continue;
    if (kept.size() != paths.size()) entry["fieldsV1"] = fieldsFromPaths(kept);
    new_managed.push_back(entry);
  }
  json mine = {{"manager", request.manager},        {"operation", "Apply"},
               {"apiVersion", request.api_version}, {"time", formatRfc3339(request.now)},
               {"fieldsType", "FieldsV1"},          {"fieldsV1", fields}};
  if (!request.subresource.empty()) mine["subresource"] = request.subresource;
  new_managed.push_back(mine);
  if (!result.contains("metadata") || !result["metadata"].is_object())
    result["metadata"] = json::object();
  result["metadata"]["managedFields"] = new_managed;
  if (config.contains("metadata")) {
    for (const char* key : {"name", "namespace"})
      if (config["metadata"].contains(key)) result["metadata"][key] = config["metadata"][key];
  }
  if (config.contains("apiVersion")) result["apiVersion"] = config["apiVersion"];
  if (config.contains("kind")) result["kind"] = config["kind"];
  return result;
}

}  // namespace troupe::apiserver
