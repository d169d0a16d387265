#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/clock.h"

// Reading the few metadata fields the controllers need from API objects as the server
// sends them. Missing fields read as empty, never as an exception.
namespace troupe::controllers {

using Json = nlohmann::json;

// The string at a JSON pointer ("/metadata/name"), or "" when absent or not a string.
std::string stringAt(const Json& object, std::string_view pointer);
// The integer at a JSON pointer, or `fallback`.
std::int64_t intAt(const Json& object, std::string_view pointer, std::int64_t fallback = 0);
// The boolean at a JSON pointer, or `fallback`.
bool boolAt(const Json& object, std::string_view pointer, bool fallback);

std::string nameOf(const Json& object);
std::string namespaceOf(const Json& object);
// "namespace/name", or "name" for cluster-scoped objects.
std::string keyOf(const Json& object);
std::string label(const Json& object, std::string_view key);
std::string annotation(const Json& object, std::string_view key);
bool isDeleting(const Json& object);

// RFC 3339 timestamps ("2026-11-23T03:40:00Z") as whole seconds since the epoch, the
// controllers' and the engine's time.
std::optional<std::int64_t> parseTimestamp(std::string_view text);
std::string formatTimestamp(std::int64_t seconds);
inline std::int64_t epochSeconds(Time t) {
  return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}

// The ownerReference that controls `object` ("Kind" and name), if any.
struct Owner {
  std::string kind;
  std::string name;
  std::string uid;
};
std::optional<Owner> controllerOf(const Json& object);
// An ownerReference with controller: true, blockOwnerDeletion: true.
Json ownerReference(const Json& owner);

}  // namespace troupe::controllers
