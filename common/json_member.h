#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

// Reading a member of a JSON object in place. nlohmann's value(key, json::object())
// returns a copy of the whole member, which for a pod's spec or status is most of the
// pod; readers on the hot paths (kubelets, controllers, admission) only look.
namespace troupe {

// object[key] when `object` is a JSON object whose `key` holds a JSON object, else a
// shared empty object, so reads can be chained: objectMember(pod, "spec").value(...).
inline const nlohmann::json& objectMember(const nlohmann::json& object, std::string_view key) {
  static const nlohmann::json kEmpty = nlohmann::json::object();
  if (!object.is_object()) return kEmpty;
  auto it = object.find(key);
  return it != object.end() && it->is_object() ? *it : kEmpty;
}

// object[key] when `object` is a JSON object whose `key` holds an array, else a shared
// empty array.
inline const nlohmann::json& arrayMember(const nlohmann::json& object, std::string_view key) {
  static const nlohmann::json kEmpty = nlohmann::json::array();
  if (!object.is_object()) return kEmpty;
  auto it = object.find(key);
  return it != object.end() && it->is_array() ? *it : kEmpty;
}

// metadata.<key> of an API object when it is a string, else "".
inline std::string metaString(const nlohmann::json& object, std::string_view key) {
  const nlohmann::json& meta = objectMember(object, "metadata");
  auto it = meta.find(key);
  return it != meta.end() && it->is_string() ? it->get<std::string>() : "";
}

}  // namespace troupe
