// Building a Schema from JSON and refusing schemas that are not structural, in the words
// kube-apiserver uses when it refuses a CustomResourceDefinition.
#include <fmt/format.h>

#include <set>

#include "api/field_error.h"
#include "openapi/schema.h"
#include "openapi/schema_node.h"

namespace troupe::openapi {

using nlohmann::json;
namespace api = troupe::api;

std::string jsonTypeName(const json& value) {
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

namespace {

enum class Where { Root, Property, Items, AdditionalProperties, Junctor };

const std::set<std::string>& knownKeys() {
  static const std::set<std::string> keys = {"type",
                                             "format",
                                             "title",
                                             "description",
                                             "nullable",
                                             "properties",
                                             "additionalProperties",
                                             "items",
                                             "required",
                                             "enum",
                                             "minimum",
                                             "maximum",
                                             "exclusiveMinimum",
                                             "exclusiveMaximum",
                                             "multipleOf",
                                             "minLength",
                                             "maxLength",
                                             "pattern",
                                             "minItems",
                                             "maxItems",
                                             "uniqueItems",
                                             "minProperties",
                                             "maxProperties",
                                             "default",
                                             "example",
                                             "externalDocs",
                                             "allOf",
                                             "anyOf",
                                             "oneOf",
                                             "not",
                                             "x-kubernetes-preserve-unknown-fields",
                                             "x-kubernetes-embedded-resource",
                                             "x-kubernetes-int-or-string",
                                             "x-kubernetes-list-type",
                                             "x-kubernetes-list-map-keys",
                                             "x-kubernetes-map-type",
                                             "x-kubernetes-validations"};
  return keys;
}

bool isScalarType(const std::string& type) {
  return type == "string" || type == "integer" || type == "number" || type == "boolean";
}

class Loader {
 public:
  std::vector<Error> errors;

  std::shared_ptr<SchemaNode> load(const json& j, const std::string& path, Where where) {
    auto node = std::make_shared<SchemaNode>();
    if (!j.is_object()) {
      errors.push_back(
          api::typeInvalid(path, jsonTypeName(j), fmt::format("{} must be a schema object", path)));
      return node;
    }
    for (const auto& [key, value] : j.items()) {
      if (key == "$ref" || key == "$schema" || key == "id" || key == "definitions" ||
          key == "dependencies" || key == "additionalItems" || key == "patternProperties") {
        errors.push_back(
            api::forbidden(api::childPath(path, key), fmt::format("{} is not supported", key)));
      } else if (!knownKeys().count(key)) {
        errors.push_back(api::forbidden(api::childPath(path, key),
                                        "unknown field in a JSON schema; not supported"));
      }
    }
    readScalars(j, path, *node);
    if (where == Where::Junctor) {
      checkJunctorMember(j, path);
    }
    readChildren(j, path, *node);
    checkStructural(*node, j, path, where);
    readRules(j, path, *node);
    if (node->default_value) checkDefault(*node, path, where);
    node->has_rules_below = !node->rules.empty();
    for (const auto& [name, child] : node->properties)
      node->has_rules_below |= child->has_rules_below;
    if (node->items) node->has_rules_below |= node->items->has_rules_below;
    if (node->additional_properties)
      node->has_rules_below |= node->additional_properties->has_rules_below;
    return node;
  }

 private:
  template <typename T>
  std::optional<T> get(const json& j, const char* key, const std::string& path, const char* want) {
    auto it = j.find(key);
    if (it == j.end()) return std::nullopt;
    try {
      return it->get<T>();
    } catch (const json::exception&) {
      errors.push_back(api::typeInvalid(api::childPath(path, key), jsonTypeName(*it),
                                        fmt::format("{} must be {}", key, want)));
      return std::nullopt;
    }
  }

  std::optional<int64_t> getCount(const json& j, const char* key, const std::string& path) {
    auto v = get<int64_t>(j, key, path, "an integer");
    if (v && *v < 0) {
      errors.push_back(api::invalid(api::childPath(path, key), *v, "must not be negative"));
      return std::nullopt;
    }
    return v;
  }

  void readScalars(const json& j, const std::string& path, SchemaNode& node) {
    node.type = get<std::string>(j, "type", path, "a string").value_or("");
    if (!node.type.empty() && node.type != "object" && node.type != "array" &&
        !isScalarType(node.type)) {
      errors.push_back(
          api::notSupported(api::childPath(path, "type"), node.type,
                            {"array", "boolean", "integer", "number", "object", "string"}));
    }
    node.format = get<std::string>(j, "format", path, "a string").value_or("");
    node.nullable = get<bool>(j, "nullable", path, "a boolean").value_or(false);
    node.required = get<std::vector<std::string>>(j, "required", path, "a list of strings")
                        .value_or(std::vector<std::string>{});
    if (auto it = j.find("enum"); it != j.end()) {
      if (!it->is_array()) {
        errors.push_back(api::typeInvalid(api::childPath(path, "enum"), jsonTypeName(*it),
                                          "enum must be a list"));
      } else {
        node.has_enum = true;
        node.enum_values.assign(it->begin(), it->end());
      }
    }
    node.minimum = get<double>(j, "minimum", path, "a number");
    node.maximum = get<double>(j, "maximum", path, "a number");
    node.multiple_of = get<double>(j, "multipleOf", path, "a number");
    if (node.multiple_of && *node.multiple_of <= 0) {
      errors.push_back(api::invalid(api::childPath(path, "multipleOf"), *node.multiple_of,
                                    "must be greater than zero"));
      node.multiple_of.reset();
    }
    node.exclusive_minimum = get<bool>(j, "exclusiveMinimum", path, "a boolean").value_or(false);
    node.exclusive_maximum = get<bool>(j, "exclusiveMaximum", path, "a boolean").value_or(false);
    node.min_length = getCount(j, "minLength", path);
    node.max_length = getCount(j, "maxLength", path);
    node.min_items = getCount(j, "minItems", path);
    node.max_items = getCount(j, "maxItems", path);
    node.min_properties = getCount(j, "minProperties", path);
    node.max_properties = getCount(j, "maxProperties", path);
    node.pattern = get<std::string>(j, "pattern", path, "a string");
    if (node.pattern) {
      try {
        node.pattern_regex.emplace(*node.pattern, std::regex::ECMAScript);
      } catch (const std::regex_error& e) {
        errors.push_back(
            api::invalid(api::childPath(path, "pattern"), *node.pattern,
                         fmt::format("must be a valid regular expression: {}", e.what())));
      }
    }
    if (auto it = j.find("default"); it != j.end()) node.default_value = *it;
    if (get<bool>(j, "uniqueItems", path, "a boolean").value_or(false)) {
      errors.push_back(api::forbidden(
          api::childPath(path, "uniqueItems"),
          "uniqueItems cannot be set to true since the runtime complexity becomes quadratic"));
    }
    if (auto v = get<bool>(j, "x-kubernetes-preserve-unknown-fields", path, "a boolean")) {
      if (!*v) {
        errors.push_back(api::invalid(api::childPath(path, "x-kubernetes-preserve-unknown-fields"),
                                      false, "must be true or undefined"));
      }
      node.preserve_unknown_fields = *v;
    }
    node.embedded_resource =
        get<bool>(j, "x-kubernetes-embedded-resource", path, "a boolean").value_or(false);
    node.int_or_string =
        get<bool>(j, "x-kubernetes-int-or-string", path, "a boolean").value_or(false);
    node.list_type = get<std::string>(j, "x-kubernetes-list-type", path, "a string").value_or("");
    node.list_map_keys =
        get<std::vector<std::string>>(j, "x-kubernetes-list-map-keys", path, "a list of strings")
            .value_or(std::vector<std::string>{});
    if (auto map_type = get<std::string>(j, "x-kubernetes-map-type", path, "a string")) {
      if (*map_type != "granular" && *map_type != "atomic") {
        errors.push_back(api::notSupported(api::childPath(path, "x-kubernetes-map-type"), *map_type,
                                           {"granular", "atomic"}));
      }
    }
  }

  void readChildren(const json& j, const std::string& path, SchemaNode& node) {
    if (auto it = j.find("properties"); it != j.end()) {
      if (!it->is_object()) {
        errors.push_back(api::typeInvalid(api::childPath(path, "properties"), jsonTypeName(*it),
                                          "properties must be a map of schemas"));
      } else {
        for (const auto& [name, child] : it->items()) {
          node.properties[name] =
              load(child, api::keyPath(api::childPath(path, "properties"), name), Where::Property);
        }
      }
    }
    if (auto it = j.find("additionalProperties"); it != j.end()) {
      std::string child_path = api::childPath(path, "additionalProperties");
      if (it->is_boolean()) {
        if (!it->get<bool>()) {
          errors.push_back(api::forbidden(child_path,
                                          "additionalProperties: false is not supported; leave "
                                          "it out to prune unknown fields"));
        }
        node.additional_properties_any = it->get<bool>();
      } else {
        node.additional_properties = load(*it, child_path, Where::AdditionalProperties);
      }
      if (j.contains("properties")) {
        errors.push_back(
            api::forbidden(child_path, "additionalProperties and properties are mutual exclusive"));
      }
    }
    if (auto it = j.find("items"); it != j.end()) {
      if (it->is_array()) {
        errors.push_back(api::forbidden(api::childPath(path, "items"),
                                        "items must be a schema object, not an array"));
      } else {
        node.items = load(*it, api::childPath(path, "items"), Where::Items);
      }
    }
    for (const char* junctor : {"allOf", "anyOf", "oneOf"}) {
      auto it = j.find(junctor);
      if (it == j.end()) continue;
      std::string junctor_path = api::childPath(path, junctor);
      if (!it->is_array()) {
        errors.push_back(api::typeInvalid(junctor_path, jsonTypeName(*it),
                                          fmt::format("{} must be a list of schemas", junctor)));
        continue;
      }
      auto& list = std::string(junctor) == "allOf"   ? node.all_of
                   : std::string(junctor) == "anyOf" ? node.any_of
                                                     : node.one_of;
      for (size_t i = 0; i < it->size(); ++i) {
        list.push_back(load((*it)[i], api::indexPath(junctor_path, i),
                            node.int_or_string ? Where::Property : Where::Junctor));
      }
    }
    if (auto it = j.find("not"); it != j.end()) {
      node.not_schema = load(*it, api::childPath(path, "not"), Where::Junctor);
    }
  }

  void checkJunctorMember(const json& j, const std::string& path) {
    for (const char* key :
         {"type", "description", "title", "default", "nullable", "additionalProperties",
          "x-kubernetes-preserve-unknown-fields", "x-kubernetes-embedded-resource",
          "x-kubernetes-int-or-string", "x-kubernetes-list-type", "x-kubernetes-list-map-keys",
          "x-kubernetes-map-type", "x-kubernetes-validations"}) {
      if (j.contains(key)) {
        errors.push_back(
            api::forbidden(api::childPath(path, key), "must be empty to be structural"));
      }
    }
  }

  void checkStructural(SchemaNode& node, const json& j, const std::string& path, Where where) {
    std::string type_path = api::childPath(path, "type");
    if (where == Where::Root && node.type != "object") {
      if (node.type.empty()) {
        errors.push_back(api::required(type_path, "must not be empty at the root"));
      } else {
        errors.push_back(api::invalid(type_path, node.type, "must be object at the root"));
      }
    }
    if (node.int_or_string) {
      if (!node.type.empty()) {
        errors.push_back(api::invalid(type_path, node.type,
                                      "must be empty if x-kubernetes-int-or-string is true"));
      }
    } else if (node.type.empty() && !node.preserve_unknown_fields && where != Where::Junctor &&
               where != Where::Root) {
      const char* what = where == Where::Items ? "must not be empty for specified array items"
                                               : "must not be empty for specified object fields";
      errors.push_back(api::required(type_path, what));
    }
    if (node.embedded_resource) {
      if (node.type != "object") {
        errors.push_back(api::invalid(type_path, node.type,
                                      "must be object if x-kubernetes-embedded-resource is true"));
      }
      if (node.properties.empty() && !node.preserve_unknown_fields) {
        errors.push_back(
            api::required(api::childPath(path, "properties"),
                          "must not be empty if x-kubernetes-embedded-resource is true without "
                          "x-kubernetes-preserve-unknown-fields"));
      }
    }
    if (!node.properties.empty() && !node.type.empty() && node.type != "object") {
      errors.push_back(api::invalid(type_path, node.type, "must be object if properties are set"));
    }
    if (node.items && node.type != "array") {
      errors.push_back(api::invalid(type_path, node.type, "must be array if items are set"));
    }
    if (node.type == "array" && !node.items && where != Where::Junctor) {
      errors.push_back(
          api::required(api::childPath(path, "items"), "must be specified for arrays"));
    }
    for (const auto& name : node.required) {
      if (!node.properties.empty() && !node.properties.count(name) &&
          !node.preserve_unknown_fields && where != Where::Junctor) {
        errors.push_back(
            api::invalid(api::childPath(path, "required"), name, "must be the name of a property"));
      }
    }
    if (where == Where::Root) checkRootMetadata(j, path);
    checkListType(node, path);
  }

  void checkRootMetadata(const json& j, const std::string& path) {
    auto props = j.find("properties");
    if (props == j.end() || !props->is_object()) return;
    auto metadata = props->find("metadata");
    if (metadata == props->end() || !metadata->is_object()) return;
    std::string metadata_path = api::keyPath(api::childPath(path, "properties"), "metadata");
    for (const auto& [key, value] : metadata->items()) {
      if (key == "type" || key == "description") continue;
      if (key == "properties" && value.is_object()) {
        for (const auto& [name, child] : value.items()) {
          (void)child;
          if (name != "name" && name != "generateName") {
            errors.push_back(
                api::forbidden(metadata_path,
                               "must not specify anything other than name and generateName, but "
                               "metadata is implicitly specified"));
            return;
          }
        }
        continue;
      }
      errors.push_back(api::forbidden(metadata_path,
                                      "must not specify anything other than name and "
                                      "generateName, but metadata is implicitly specified"));
      return;
    }
  }

  void checkListType(const SchemaNode& node, const std::string& path) {
    std::string type_path = api::childPath(path, "x-kubernetes-list-type");
    std::string keys_path = api::childPath(path, "x-kubernetes-list-map-keys");
    if (node.list_type.empty()) {
      if (!node.list_map_keys.empty()) {
        errors.push_back(
            api::forbidden(keys_path, "must be empty if x-kubernetes-list-type is not map"));
      }
      return;
    }
    if (node.list_type != "atomic" && node.list_type != "set" && node.list_type != "map") {
      errors.push_back(api::notSupported(type_path, node.list_type, {"atomic", "set", "map"}));
      return;
    }
    if (node.type != "array") {
      errors.push_back(
          api::invalid(type_path, node.list_type, "must only be used on arrays (type: array)"));
      return;
    }
    if (node.list_type != "map" && !node.list_map_keys.empty()) {
      errors.push_back(
          api::forbidden(keys_path, "must be empty if x-kubernetes-list-type is not map"));
    }
    if (!node.items) return;
    if (node.list_type == "set" && !isScalarType(node.items->type) &&
        node.items->list_type != "atomic") {
      errors.push_back(api::forbidden(api::childPath(path, "items"),
                                      "must be a scalar type or atomic if "
                                      "x-kubernetes-list-type is set"));
    }
    if (node.list_type == "map") {
      if (node.list_map_keys.empty()) {
        errors.push_back(
            api::required(keys_path, "must not be empty if x-kubernetes-list-type is map"));
      }
      if (node.items->type != "object") {
        errors.push_back(
            api::invalid(api::childPath(api::childPath(path, "items"), "type"), node.items->type,
                         "must be object if parent array's x-kubernetes-list-type is map"));
        return;
      }
      for (const auto& key : node.list_map_keys) {
        auto it = node.items->properties.find(key);
        if (it == node.items->properties.end()) {
          errors.push_back(
              api::invalid(keys_path, key, "entries must all be names of item properties"));
          continue;
        }
        if (!isScalarType(it->second->type)) {
          errors.push_back(
              api::invalid(keys_path, key, "entries must all be names of scalar properties"));
        }
        bool required = std::find(node.items->required.begin(), node.items->required.end(), key) !=
                        node.items->required.end();
        if (!required && !it->second->default_value) {
          errors.push_back(api::invalid(
              keys_path, key,
              "entries must all be names of required properties or properties with a default"));
        }
      }
    }
  }

  void readRules(const json& j, const std::string& path, SchemaNode& node) {
    auto it = j.find("x-kubernetes-validations");
    if (it == j.end()) return;
    std::string rules_path = api::childPath(path, "x-kubernetes-validations");
    if (!it->is_array()) {
      errors.push_back(api::typeInvalid(rules_path, jsonTypeName(*it),
                                        "x-kubernetes-validations must be a list"));
      return;
    }
    for (size_t i = 0; i < it->size(); ++i) {
      const json& r = (*it)[i];
      std::string rule_path = api::indexPath(rules_path, i);
      if (!r.is_object() || !r.contains("rule") || !r["rule"].is_string()) {
        errors.push_back(api::required(api::childPath(rule_path, "rule")));
        continue;
      }
      ValidationRule rule;
      rule.rule = r["rule"].get<std::string>();
      for (const auto& [key, value] : r.items()) {
        if (key == "rule") continue;
        std::string key_path = api::childPath(rule_path, key);
        if (key == "messageExpression") {
          errors.push_back(api::forbidden(
              key_path, "messageExpression is outside Troupe's CEL subset; use message"));
        } else if (key == "optionalOldSelf") {
          errors.push_back(api::forbidden(key_path, "optionalOldSelf is not supported"));
        } else if (!value.is_string()) {
          errors.push_back(api::typeInvalid(key_path, jsonTypeName(value), "must be a string"));
        } else if (key == "message") {
          rule.message = value.get<std::string>();
          if (rule.message.find_first_not_of(" \t\r\n") == std::string::npos) {
            errors.push_back(api::required(key_path, "message must be non-empty if specified"));
          } else if (rule.message.find('\n') != std::string::npos) {
            errors.push_back(
                api::invalid(key_path, rule.message, "message must not contain line breaks"));
          }
        } else if (key == "fieldPath") {
          rule.field_path = value.get<std::string>();
        } else if (key == "reason") {
          rule.reason = value.get<std::string>();
          if (rule.reason != "FieldValueInvalid" && rule.reason != "FieldValueForbidden" &&
              rule.reason != "FieldValueRequired" && rule.reason != "FieldValueDuplicate") {
            errors.push_back(api::notSupported(key_path, rule.reason,
                                               {"FieldValueInvalid", "FieldValueForbidden",
                                                "FieldValueRequired", "FieldValueDuplicate"}));
          }
        } else {
          errors.push_back(api::forbidden(key_path, "unknown field in a validation rule"));
        }
      }
      auto program = CelProgram::compile(rule.rule);
      if (!program) {
        errors.push_back(
            api::invalid(api::childPath(rule_path, "rule"), rule.rule, program.error().message));
        continue;
      }
      rule.program = std::move(*program);
      checkChains(node, rule, api::childPath(rule_path, "rule"));
      if (!rule.field_path.empty())
        checkFieldPath(node, rule, api::childPath(rule_path, "fieldPath"));
      node.rules.push_back(std::move(rule));
    }
  }

  // Field names selected on self must exist in the schema (the apiserver's CEL type checker
  // refuses them at CRD creation); maps and preserved objects accept any name.
  void checkChains(const SchemaNode& node, const ValidationRule& rule, const std::string& path) {
    for (const auto& chain : rule.program.selfFieldChains()) {
      const SchemaNode* cur = &node;
      for (const auto& name : chain) {
        if (cur->additional_properties) {
          cur = cur->additional_properties.get();
          continue;
        }
        if (cur->preserve_unknown_fields || cur->additional_properties_any) break;
        if (cur->type != "object") {
          errors.push_back(api::invalid(
              path, rule.rule,
              fmt::format("compilation failed: ERROR: <input>: type '{}' does not support field "
                          "selection ('{}')",
                          cur->type.empty() ? "dyn" : cur->type, name)));
          return;
        }
        auto it = cur->properties.find(name);
        if (it == cur->properties.end()) {
          errors.push_back(api::invalid(
              path, rule.rule,
              fmt::format("compilation failed: ERROR: <input>: undefined field '{}'", name)));
          return;
        }
        cur = it->second.get();
      }
    }
  }

  void checkFieldPath(const SchemaNode& node, const ValidationRule& rule, const std::string& path) {
    const SchemaNode* cur = &node;
    std::string_view rest = rule.field_path;
    while (!rest.empty()) {
      if (rest[0] != '.') {
        errors.push_back(api::invalid(path, rule.field_path,
                                      "fieldPath must be a relative path of field selections "
                                      "such as .spec.replicas"));
        return;
      }
      rest.remove_prefix(1);
      size_t end = rest.find('.');
      std::string name(rest.substr(0, end));
      rest = end == std::string_view::npos ? std::string_view() : rest.substr(end);
      auto it = cur->properties.find(name);
      if (it == cur->properties.end()) {
        errors.push_back(api::invalid(path, rule.field_path,
                                      fmt::format("fieldPath must refer to an existing field: "
                                                  "no such field '{}'",
                                                  name)));
        return;
      }
      cur = it->second.get();
    }
  }

  void checkDefault(const SchemaNode& node, const std::string& path, Where where) {
    std::string default_path = api::childPath(path, "default");
    if (where == Where::Root || where == Where::Junctor) {
      errors.push_back(api::forbidden(default_path, "must not be set here"));
      return;
    }
    json value = *node.default_value;
    std::vector<std::string> removed;
    pruneValue(node, value, "", false, removed);
    if (!removed.empty()) {
      errors.push_back(api::invalid(default_path, *node.default_value,
                                    fmt::format("must not have unknown fields: {}", removed[0])));
    }
    std::vector<Error> problems;
    validateSchema(node, value, "default", false, problems);
    for (auto& e : problems) {
      errors.push_back(api::invalid(default_path, *node.default_value,
                                    fmt::format("{}: {}", e.field_path, e.message)));
    }
  }
};

}  // namespace

std::vector<Error> Schema::check(const json& schema, std::string_view path) {
  Loader loader;
  loader.load(schema, std::string(path), Where::Root);
  return std::move(loader.errors);
}

Result<Schema> Schema::fromJson(const json& schema, std::string_view path) {
  Loader loader;
  auto root = loader.load(schema, std::string(path), Where::Root);
  if (!loader.errors.empty()) return loader.errors.front();
  return Schema(std::move(root));
}

bool Schema::hasValidationRules() const { return root_->has_rules_below; }

}  // namespace troupe::openapi
