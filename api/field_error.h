#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/error.h"

namespace troupe::api {

// Field errors in the exact words Kubernetes uses (k8s.io/apimachinery field.Error), so that
// an Error made here renders byte for byte like the real API server's:
//   field_path = "spec.replicas"
//   message    = "Invalid value: 0: spec.replicas in body should be greater than or equal to 1"
// The message starts with the error type's text ("Invalid value", "Required value", ...);
// fieldErrorType() reads it back to pick the Status cause reason.
enum class FieldErrorType {
  NotFound,
  Required,
  Duplicate,
  Invalid,
  NotSupported,
  Forbidden,
  TooLong,
  TooMany,
  Internal,
  TypeInvalid,
};

// Kubernetes field path syntax: child "spec.replicas", index "spec.containers[0]",
// key "spec.resources[nvidia.com/gpu]". An empty parent yields the bare child.
std::string childPath(std::string_view parent, std::string_view name);
std::string indexPath(std::string_view parent, size_t index);
std::string keyPath(std::string_view parent, std::string_view key);

Error required(std::string path, std::string_view detail = "");
Error invalid(std::string path, const nlohmann::json& value, std::string_view detail);
Error typeInvalid(std::string path, const nlohmann::json& value, std::string_view detail);
Error notSupported(std::string path, const nlohmann::json& value,
                   const std::vector<std::string>& supported);
Error forbidden(std::string path, std::string_view detail);
Error duplicate(std::string path, const nlohmann::json& value);
Error notFound(std::string path, const nlohmann::json& value);
Error tooLong(std::string path, int64_t max_length);
Error tooMany(std::string path, int64_t actual, int64_t max_items);
Error internalError(std::string path, std::string_view detail);

// The type an Error made by the functions above carries, read from its message.
FieldErrorType fieldErrorType(const Error& error);
// The Status cause reason for a type: "FieldValueInvalid", "FieldValueRequired", ...
const char* causeReason(FieldErrorType type);

// A value as Go's field errors print it: strings quoted like strconv.Quote, integers and
// booleans bare, floats as %v does, null as "null", objects and arrays as compact JSON.
std::string renderValue(const nlohmann::json& value);
// strconv.Quote.
std::string goQuote(std::string_view text);
// A float64 as Go's %v prints it (1.5, 1e+21, 1e-05).
std::string goFloat(double value);

}  // namespace troupe::api
