#pragma once

#include <nlohmann/json.hpp>

#include <optional>

#include "apiserver/objects/api_status.h"
#include "apiserver/registry/resource_kind.h"

// The JSON types of the fields the server itself reads from an object it is asked to
// write: apiVersion and kind, every ObjectMeta field, and for pods the spec and status
// fields that admission, binding, deletion and the kubelets read. kube-apiserver decodes
// a body into typed Go structs, so a name that is a number never gets past its decoder;
// here the check stands in for that decoder, before anything reads those fields. A wrong
// type is a 400 shaped as the real server's decoding error:
//   Pod in version "v1" cannot be handled as a Pod: metadata.name: expected a string, got 5
namespace troupe::apiserver {

std::optional<ApiError> checkObjectShape(const ResourceKind& kind, const nlohmann::json& object);

}  // namespace troupe::apiserver
