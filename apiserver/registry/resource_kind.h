#pragma once

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

// What the server knows about one kind of resource: names for discovery, the storage
// key, which subresources it has, how it prints as a Table and (for custom resources)
// the schema it is validated and defaulted against.
namespace troupe::apiserver {

struct PrinterColumn {
  std::string name;
  std::string type;  // "string", "integer", "number", "boolean", "date"
  std::string format;
  std::string description;
  std::string json_path;  // ".spec.queue"
  int priority = 0;
};

struct ResourceKind {
  std::string group;  // "" for core
  std::string version;
  std::string resource;  // plural, "trainingjobs"
  std::string singular;
  std::string kind;
  std::string list_kind;
  bool namespaced = true;
  std::vector<std::string> short_names;
  std::vector<std::string> categories;
  std::vector<std::string> verbs = {"create", "delete", "deletecollection", "get",
                                    "list",   "patch",  "update",           "watch"};
  bool has_status = false;  // status subresource: main writes keep status, /status keeps the rest
  bool has_scale = false;   // scale subresource (custom resources)
  std::string scale_spec_path = ".spec.replicas";
  std::string scale_status_path = ".status.replicas";
  std::string scale_selector_path;
  bool has_binding = false;   // pods/binding
  bool has_eviction = false;  // pods/eviction
  bool has_log = false;       // pods/log
  bool custom = false;        // defined by a CRD (no strategic merge patch, no protobuf)
  bool bumps_generation = false;
  std::vector<PrinterColumn> columns;  // without Name, which always comes first
  // openAPIV3Schema of a CRD version; null otherwise. Shared: a kind is copied out of the
  // registry for every request, and a schema is thousands of JSON nodes. A CRD write makes
  // a new one, so its address names this version of the schema.
  std::shared_ptr<const nlohmann::json> schema;

  std::string groupVersion() const { return group.empty() ? version : group + "/" + version; }
  // "pods", "trainingjobs.troupe.dev": the ObjectStore resource key and the name used in
  // error messages.
  std::string storageName() const { return group.empty() ? resource : resource + "." + group; }
};

}  // namespace troupe::apiserver
