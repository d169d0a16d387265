#include "api/json_fields.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "api/field_error.h"

namespace troupe::api {

using nlohmann::json;

namespace {

std::string typeName(const json& value) {
  switch (value.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return "boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return "integer";
    case json::value_t::number_float: return "number";
    case json::value_t::string: return "string";
    case json::value_t::array: return "array";
    case json::value_t::object: return "object";
    default: return "unknown";
  }
}

}  // namespace

const json* JsonFields::find(const json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

void JsonFields::typeError(const std::string& path, const json& value, std::string_view want) {
  errors_.push_back(typeInvalid(
      path, typeName(value),
      fmt::format("{} in body must be of type {}: \"{}\"", path, want, typeName(value))));
}

void JsonFields::typeMeta(const json& object, std::string_view api_version, std::string_view kind) {
  auto got_version = string(object, "apiVersion", "apiVersion");
  auto got_kind = string(object, "kind", "kind");
  if (got_version && *got_version != api_version)
    errors_.push_back(notSupported("apiVersion", *got_version, {std::string(api_version)}));
  if (got_kind && *got_kind != kind)
    errors_.push_back(notSupported("kind", *got_kind, {std::string(kind)}));
}

std::optional<std::string> JsonFields::string(const json& object, std::string_view key,
                                              const std::string& path) {
  const json* v = find(object, key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_string()) {
    typeError(path, *v, "string");
    return std::nullopt;
  }
  return v->get<std::string>();
}

std::optional<bool> JsonFields::boolean(const json& object, std::string_view key,
                                        const std::string& path) {
  const json* v = find(object, key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_boolean()) {
    typeError(path, *v, "boolean");
    return std::nullopt;
  }
  return v->get<bool>();
}

std::optional<int64_t> JsonFields::int64(const json& object, std::string_view key,
                                         const std::string& path) {
  const json* v = find(object, key);
  if (v == nullptr) return std::nullopt;
  if (v->is_number_unsigned() &&
      v->get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    errors_.push_back(invalid(path, *v, "must fit in a 64-bit integer"));
    return std::nullopt;
  }
  if (v->is_number_integer()) return v->get<int64_t>();
  if (v->is_number_float()) {
    double d = v->get<double>();
    if (std::isfinite(d) && std::floor(d) == d && std::fabs(d) < 9.2e18)
      return static_cast<int64_t>(d);
  }
  typeError(path, *v, "integer");
  return std::nullopt;
}

std::optional<int32_t> JsonFields::int32(const json& object, std::string_view key,
                                         const std::string& path) {
  auto v = int64(object, key, path);
  if (!v) return std::nullopt;
  if (*v < std::numeric_limits<int32_t>::min() || *v > std::numeric_limits<int32_t>::max()) {
    errors_.push_back(invalid(path, *v, "must fit in a 32-bit integer"));
    return std::nullopt;
  }
  return static_cast<int32_t>(*v);
}

std::optional<Quantity> JsonFields::quantity(const json& object, std::string_view key,
                                             const std::string& path) {
  const json* v = find(object, key);
  if (v == nullptr) return std::nullopt;
  auto q = Quantity::fromJson(*v, path);
  if (!q) {
    errors_.push_back(q.error());
    return std::nullopt;
  }
  return *q;
}

const json* JsonFields::object(const json& parent, std::string_view key, const std::string& path) {
  const json* v = find(parent, key);
  if (v == nullptr) return nullptr;
  if (!v->is_object()) {
    typeError(path, *v, "object");
    return nullptr;
  }
  return v;
}

const json* JsonFields::array(const json& parent, std::string_view key, const std::string& path) {
  const json* v = find(parent, key);
  if (v == nullptr) return nullptr;
  if (!v->is_array()) {
    typeError(path, *v, "array");
    return nullptr;
  }
  return v;
}

std::map<std::string, std::string> JsonFields::stringMap(const json& parent, std::string_view key,
                                                         const std::string& path) {
  std::map<std::string, std::string> out;
  const json* m = object(parent, key, path);
  if (m == nullptr) return out;
  for (const auto& [k, v] : m->items()) {
    if (v.is_string()) {
      out[k] = v.get<std::string>();
    } else if (!v.is_null()) {
      typeError(childPath(path, k), v, "string");
    }
  }
  return out;
}

std::vector<std::string> JsonFields::stringList(const json& parent, std::string_view key,
                                                const std::string& path) {
  std::vector<std::string> out;
  const json* a = array(parent, key, path);
  if (a == nullptr) return out;
  for (size_t i = 0; i < a->size(); ++i) {
    if ((*a)[i].is_string()) {
      out.push_back((*a)[i].get<std::string>());
    } else {
      typeError(indexPath(path, i), (*a)[i], "string");
    }
  }
  return out;
}

std::map<std::string, Quantity> JsonFields::resourceMap(const json& parent, std::string_view key,
                                                        const std::string& path) {
  std::map<std::string, Quantity> out;
  const json* m = object(parent, key, path);
  if (m == nullptr) return out;
  for (const auto& [name, v] : m->items()) {
    if (v.is_null()) continue;
    auto q = Quantity::fromJson(v, keyPath(path, name));
    if (q) {
      out.emplace(name, *q);
    } else {
      errors_.push_back(q.error());
    }
  }
  return out;
}

}  // namespace troupe::api
