#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "apiserver/objects/api_status.h"
#include "common/clock.h"

// The four PATCH flavours: JSON merge patch (RFC 7386) and JSON patch (RFC 6902), both
// from nlohmann/json; strategic merge patch for built-in kinds (merge keys for the lists
// Kubernetes merges by key, directives stripped); and server-side apply (simplified:
// see docs/standalone.md).
namespace troupe::apiserver {

enum class PatchType { Merge, Json, Strategic, Apply };

// From a Content-Type; nullopt for anything else.
std::optional<PatchType> patchTypeOf(const std::string& content_type);

ApiResult<nlohmann::json> applyMergePatch(const nlohmann::json& target,
                                          const nlohmann::json& patch);
ApiResult<nlohmann::json> applyJsonPatch(const nlohmann::json& target, const nlohmann::json& patch);
nlohmann::json applyStrategicPatch(const nlohmann::json& target, const nlohmann::json& patch);

struct ApplyRequest {
  std::string manager;
  bool force = false;
  std::string api_version;
  std::string subresource;  // "" or "status"
  Time now;
};

// Server-side apply of `config` over `current` (null when the object does not exist).
// Returns the new object with updated managedFields, or a 409 naming each conflict.
ApiResult<nlohmann::json> serverSideApply(const nlohmann::json& current,
                                          const nlohmann::json& config,
                                          const ApplyRequest& request);

// The FieldsV1 set of an object's fields (metadata limited to labels and annotations).
nlohmann::json fieldSetOf(const nlohmann::json& object);

}  // namespace troupe::apiserver
