// Validating custom resources against a Schema: schema keywords, list types and
// x-kubernetes-validations rules, with errors in kube-apiserver's words.
#include <fmt/format.h>

#include <cmath>
#include <regex>
#include <set>

#include "api/field_error.h"
#include "openapi/schema.h"
#include "openapi/schema_node.h"

namespace troupe::openapi {

using nlohmann::json;
namespace api = troupe::api;

namespace {

bool typeMatches(const std::string& type, const json& value) {
  if (type == "object") return value.is_object();
  if (type == "array") return value.is_array();
  if (type == "string") return value.is_string();
  if (type == "boolean") return value.is_boolean();
  if (type == "number") return value.is_number();
  if (type == "integer") {
    if (value.is_number_integer()) return true;
    if (value.is_number_float()) {
      double d = value.get<double>();
      return std::isfinite(d) && std::floor(d) == d;
    }
    return false;
  }
  return true;
}

size_t runeCount(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++n;
  return n;
}

std::string bound(double v) { return api::goFloat(v); }

bool formatOk(const std::string& format, const std::string& s) {
  static const std::regex date_time(
      R"(^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$)");
  static const std::regex date(R"(^\d{4}-\d{2}-\d{2}$)");
  static const std::regex uuid(
      R"(^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$)");
  static const std::regex ipv4(
      R"(^((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$)");
  static const std::regex byte(
      R"(^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$)");
  if (format == "date-time") return std::regex_match(s, date_time);
  if (format == "date") return std::regex_match(s, date);
  if (format == "uuid") return std::regex_match(s, uuid);
  if (format == "ipv4") return std::regex_match(s, ipv4);
  if (format == "byte") return std::regex_match(s, byte);
  return true;  // unknown formats are ignored, as Kubernetes does
}

void validateJunctors(const SchemaNode& node, const json& value, const std::string& path,
                      std::vector<Error>& errors) {
  for (const auto& sub : node.all_of) validateSchema(*sub, value, path, false, errors);
  if (!node.any_of.empty()) {
    bool any = false;
    for (const auto& sub : node.any_of) {
      std::vector<Error> sub_errors;
      validateSchema(*sub, value, path, false, sub_errors);
      any |= sub_errors.empty();
    }
    if (!any) {
      errors.push_back(api::invalid(
          path, value.is_object() || value.is_array() ? json(jsonTypeName(value)) : value,
          "must validate at least one schema (anyOf)"));
    }
  }
  if (!node.one_of.empty()) {
    int passing = 0;
    for (const auto& sub : node.one_of) {
      std::vector<Error> sub_errors;
      validateSchema(*sub, value, path, false, sub_errors);
      passing += sub_errors.empty() ? 1 : 0;
    }
    if (passing != 1) {
      errors.push_back(api::invalid(
          path, value.is_object() || value.is_array() ? json(jsonTypeName(value)) : value,
          "must validate one and only one schema (oneOf)"));
    }
  }
  if (node.not_schema) {
    std::vector<Error> sub_errors;
    validateSchema(*node.not_schema, value, path, false, sub_errors);
    if (sub_errors.empty()) {
      errors.push_back(api::invalid(
          path, value.is_object() || value.is_array() ? json(jsonTypeName(value)) : value,
          "must not validate the schema (not)"));
    }
  }
}

}  // namespace

void validateSchema(const SchemaNode& node, const json& value, const std::string& path,
                    bool is_root, std::vector<Error>& errors) {
  const std::string& name = path;
  if (value.is_null()) {
    if (node.nullable || (node.type.empty() && !node.int_or_string)) return;
    std::string want = node.int_or_string ? "integer,string" : node.type;
    errors.push_back(api::typeInvalid(
        path, "null", fmt::format("{} in body must be of type {}: \"null\"", name, want)));
    return;
  }
  if (node.int_or_string) {
    if (!value.is_number_integer() && !value.is_string()) {
      errors.push_back(
          api::typeInvalid(path, jsonTypeName(value),
                           fmt::format("{} in body must be of type integer,string: \"{}\"", name,
                                       jsonTypeName(value))));
      return;
    }
  } else if (!node.type.empty() && !typeMatches(node.type, value)) {
    errors.push_back(api::typeInvalid(path, jsonTypeName(value),
                                      fmt::format("{} in body must be of type {}: \"{}\"", name,
                                                  node.type, jsonTypeName(value))));
    return;
  }
  if (node.has_enum) {
    bool found = false;
    for (const auto& allowed : node.enum_values) found |= allowed == value;
    if (!found) {
      std::vector<std::string> supported;
      for (const auto& allowed : node.enum_values)
        supported.push_back(allowed.is_string() ? allowed.get<std::string>() : allowed.dump());
      errors.push_back(api::notSupported(path, value, supported));
    }
  }
  if (value.is_string()) {
    const auto& s = value.get_ref<const std::string&>();
    size_t length = runeCount(s);
    // kube-openapi's string validator reports the first of maxLength, minLength and pattern
    // that fails, not all of them.
    if (node.max_length && static_cast<int64_t>(length) > *node.max_length) {
      errors.push_back(api::tooLong(path, *node.max_length));
    } else if (node.min_length && static_cast<int64_t>(length) < *node.min_length) {
      errors.push_back(api::invalid(
          path, value,
          fmt::format("{} in body should be at least {} chars long", name, *node.min_length)));
    } else if (node.pattern_regex && !std::regex_search(s, *node.pattern_regex)) {
      errors.push_back(api::invalid(
          path, value, fmt::format("{} in body should match '{}'", name, *node.pattern)));
    }
    if (!node.format.empty() && !formatOk(node.format, s)) {
      errors.push_back(api::typeInvalid(
          path, value,
          fmt::format("{} in body must be of type {}: {}", name, node.format, api::goQuote(s))));
    }
  } else if (value.is_number()) {
    double v = value.get<double>();
    if (node.minimum) {
      if (node.exclusive_minimum ? v <= *node.minimum : v < *node.minimum) {
        errors.push_back(api::invalid(
            path, value,
            fmt::format("{} in body should be greater than {}{}", name,
                        node.exclusive_minimum ? "" : "or equal to ", bound(*node.minimum))));
      }
    }
    if (node.maximum) {
      if (node.exclusive_maximum ? v >= *node.maximum : v > *node.maximum) {
        errors.push_back(api::invalid(
            path, value,
            fmt::format("{} in body should be less than {}{}", name,
                        node.exclusive_maximum ? "" : "or equal to ", bound(*node.maximum))));
      }
    }
    if (node.multiple_of) {
      double q = v / *node.multiple_of;
      if (std::floor(q) != q) {
        errors.push_back(api::invalid(
            path, value,
            fmt::format("{} in body should be a multiple of {}", name, bound(*node.multiple_of))));
      }
    }
  } else if (value.is_array()) {
    auto size = static_cast<int64_t>(value.size());
    if (node.max_items && size > *node.max_items) {
      errors.push_back(api::tooMany(path, size, *node.max_items));
    }
    if (node.min_items && size < *node.min_items) {
      errors.push_back(api::invalid(
          path, size,
          fmt::format("{} in body should have at least {} items", name, *node.min_items)));
    }
    if (node.items) {
      for (size_t i = 0; i < value.size(); ++i)
        validateSchema(*node.items, value[i], api::indexPath(path, i), false, errors);
    }
  } else if (value.is_object()) {
    auto size = static_cast<int64_t>(value.size());
    if (node.max_properties && size > *node.max_properties) {
      errors.push_back(api::tooMany(path, size, *node.max_properties));
    }
    if (node.min_properties && size < *node.min_properties) {
      errors.push_back(api::invalid(path, size,
                                    fmt::format("{} in body should have at least {} properties",
                                                name, *node.min_properties)));
    }
    for (const auto& required : node.required) {
      if (!value.contains(required))
        errors.push_back(api::required(api::childPath(path, required)));
    }
    if (node.embedded_resource) {
      for (const char* field : {"apiVersion", "kind"}) {
        auto it = value.find(field);
        if (it == value.end() || (it->is_string() && it->get<std::string>().empty()))
          errors.push_back(api::required(api::childPath(path, field), "must not be empty"));
      }
    }
    for (const auto& [key, child] : node.properties) {
      if (is_root && key == "metadata") continue;  // ObjectMeta is the apiserver's to check
      auto it = value.find(key);
      if (it == value.end()) continue;
      validateSchema(*child, *it, api::childPath(path, key), false, errors);
    }
    if (node.additional_properties) {
      for (const auto& [key, child_value] : value.items())
        validateSchema(*node.additional_properties, child_value, api::childPath(path, key), false,
                       errors);
    }
  }
  validateJunctors(node, value, path, errors);
}

void validateListTypes(const SchemaNode& node, const json& value, const std::string& path,
                       std::vector<Error>& errors) {
  if (value.is_array()) {
    if (node.list_type == "set") {
      for (size_t i = 0; i < value.size(); ++i) {
        for (size_t j = 0; j < i; ++j) {
          if (value[i] == value[j]) {
            errors.push_back(api::duplicate(api::indexPath(path, i), value[i]));
            break;
          }
        }
      }
    } else if (node.list_type == "map") {
      std::vector<json> seen;
      for (size_t i = 0; i < value.size(); ++i) {
        if (!value[i].is_object()) continue;
        json key = json::object();
        for (const auto& k : node.list_map_keys) {
          auto it = value[i].find(k);
          key[k] = it == value[i].end() ? json(nullptr) : *it;
        }
        if (std::find(seen.begin(), seen.end(), key) != seen.end()) {
          errors.push_back(api::duplicate(api::indexPath(path, i), key));
        } else {
          seen.push_back(std::move(key));
        }
      }
    }
    if (node.items) {
      for (size_t i = 0; i < value.size(); ++i)
        validateListTypes(*node.items, value[i], api::indexPath(path, i), errors);
    }
  } else if (value.is_object()) {
    for (const auto& [key, child] : node.properties) {
      auto it = value.find(key);
      if (it != value.end()) validateListTypes(*child, *it, api::childPath(path, key), errors);
    }
    if (node.additional_properties) {
      for (const auto& [key, child_value] : value.items())
        validateListTypes(*node.additional_properties, child_value, api::childPath(path, key),
                          errors);
    }
  }
}

namespace {

// "a.b" + ".spec.x" -> "a.b.spec.x"
std::string appendFieldPath(const std::string& path, const std::string& relative) {
  std::string out = path;
  std::string_view rest = relative;
  while (!rest.empty() && rest[0] == '.') {
    rest.remove_prefix(1);
    size_t end = rest.find('.');
    out = api::childPath(out, rest.substr(0, end));
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end);
  }
  return out;
}

// The value a failed rule's error shows: the node's schema type, as kube-apiserver's
// CEL validator passes it (an x-kubernetes-int-or-string node has none: "").
std::string schemaTypeValue(const SchemaNode& node) {
  if (!node.type.empty() || node.int_or_string) return node.type;
  return "object";
}

void evaluateRules(const SchemaNode& node, const json& value, const json* old_value,
                   const std::string& path, std::vector<Error>& errors) {
  for (const auto& rule : node.rules) {
    if (rule.program.usesOldSelf() && old_value == nullptr) continue;
    auto ok = rule.program.evaluate(value, old_value);
    std::string where = path.empty() ? "<nil>" : path;
    if (!ok) {
      errors.push_back(
          api::invalid(where, schemaTypeValue(node),
                       fmt::format("{} evaluating rule: {}", ok.error().message, rule.rule)));
      continue;
    }
    if (*ok) continue;
    std::string message = rule.message.empty() ? "failed rule: " + rule.rule : rule.message;
    std::string target = rule.field_path.empty() ? where : appendFieldPath(path, rule.field_path);
    if (rule.reason == "FieldValueForbidden") {
      errors.push_back(api::forbidden(target, message));
    } else if (rule.reason == "FieldValueRequired") {
      errors.push_back(api::required(target, message));
    } else if (rule.reason == "FieldValueDuplicate") {
      errors.push_back(api::duplicate(target, schemaTypeValue(node)));
    } else {
      errors.push_back(api::invalid(target, schemaTypeValue(node), message));
    }
  }
}

}  // namespace

void validateRules(const SchemaNode& node, const json& value, const json* old_value,
                   const std::string& path, std::vector<Error>& errors) {
  if (!node.has_rules_below || value.is_null()) return;
  evaluateRules(node, value, old_value, path, errors);
  auto child_old = [&](const std::string& key) -> const json* {
    if (old_value == nullptr || !old_value->is_object()) return nullptr;
    auto it = old_value->find(key);
    return it == old_value->end() ? nullptr : &*it;
  };
  if (value.is_object()) {
    for (const auto& [key, child] : node.properties) {
      auto it = value.find(key);
      if (it != value.end())
        validateRules(*child, *it, child_old(key), api::childPath(path, key), errors);
    }
    if (node.additional_properties) {
      for (const auto& [key, child_value] : value.items())
        validateRules(*node.additional_properties, child_value, child_old(key),
                      api::childPath(path, key), errors);
    }
  } else if (value.is_array() && node.items) {
    for (size_t i = 0; i < value.size(); ++i) {
      // Only list-type=map items correlate with an old item (by their keys).
      const json* old_item = nullptr;
      if (node.list_type == "map" && old_value != nullptr && old_value->is_array() &&
          value[i].is_object()) {
        for (const auto& candidate : *old_value) {
          if (!candidate.is_object()) continue;
          bool same = true;
          for (const auto& k : node.list_map_keys)
            same &= candidate.value(k, json()) == value[i].value(k, json());
          if (same) {
            old_item = &candidate;
            break;
          }
        }
      }
      validateRules(*node.items, value[i], old_item, api::indexPath(path, i), errors);
    }
  }
}

std::vector<Error> Schema::validate(const json& object, const json* old_object) const {
  std::vector<Error> errors;
  validateSchema(*root_, object, "", true, errors);
  validateListTypes(*root_, object, "", errors);
  if (!root_->has_rules_below) return errors;
  for (const auto& e : errors) {
    auto type = api::fieldErrorType(e);
    // What kube-apiserver 1.28 takes as blocking; an enum value it does not know is not.
    if (type == api::FieldErrorType::Required || type == api::FieldErrorType::TooLong ||
        type == api::FieldErrorType::TooMany || type == api::FieldErrorType::TypeInvalid) {
      errors.push_back(api::invalid("<nil>", nullptr,
                                    "some validation rules were not checked because the object "
                                    "was invalid; correct the existing errors to complete "
                                    "validation"));
      return errors;
    }
  }
  validateRules(*root_, object, old_object, "", errors);
  return errors;
}

}  // namespace troupe::openapi
