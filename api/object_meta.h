#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/error.h"

namespace troupe::api {

struct OwnerReference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  bool controller = false;
  bool block_owner_deletion = false;

  friend bool operator==(const OwnerReference&, const OwnerReference&) = default;
};

// The parts of metadata Troupe reads and writes. Timestamps stay RFC 3339 strings as the
// server sent them. `raw` keeps the metadata exactly as decoded (managedFields and anything
// else Troupe does not model) so that encoding an object gives back what it read, with
// the modelled fields laid over it.
struct ObjectMeta {
  std::string name;
  std::string generate_name;
  std::string namespace_;
  std::string uid;
  std::string resource_version;
  int64_t generation = 0;
  std::string creation_timestamp;
  std::string deletion_timestamp;
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
  std::vector<OwnerReference> owner_references;
  std::vector<std::string> finalizers;
  nlohmann::json raw = nlohmann::json::object();

  // Decodes `metadata` (path "metadata"), appending type errors.
  static ObjectMeta fromJson(const nlohmann::json& metadata, std::vector<Error>& errors);
  nlohmann::json toJson() const;

  // The owner reference with controller: true, if any.
  const OwnerReference* controllerRef() const;
};

// Checks name (or generateName), namespace presence for namespaced kinds, label and
// annotation keys and values, as the apiserver's ObjectMeta validation does.
void validateObjectMeta(const ObjectMeta& meta, bool namespaced, std::vector<Error>& errors);

}  // namespace troupe::api
