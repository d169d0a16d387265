#pragma once

#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "openapi/cel.h"

// The parsed form of one schema node; shared by the loader, validator, defaulter and
// pruner in this folder and not meant for use outside it.
namespace troupe::openapi {

struct ValidationRule {
  std::string rule;
  std::string message;     // empty: "failed rule: <rule>"
  std::string field_path;  // relative JSON path (".spec.x"); empty: the node itself
  std::string reason;      // FieldValueInvalid (default), Forbidden, Required, Duplicate
  CelProgram program;
};

struct SchemaNode {
  std::string type;  // "", object, array, string, integer, number, boolean
  std::string format;
  bool nullable = false;
  // Ordered by name so that validation output is in a stable order.
  std::map<std::string, std::shared_ptr<const SchemaNode>> properties;
  std::shared_ptr<const SchemaNode> additional_properties;  // map values
  bool additional_properties_any = false;                   // additionalProperties: true
  std::shared_ptr<const SchemaNode> items;
  std::vector<std::string> required;
  std::vector<nlohmann::json> enum_values;
  bool has_enum = false;
  std::optional<double> minimum, maximum, multiple_of;
  bool exclusive_minimum = false, exclusive_maximum = false;
  std::optional<int64_t> min_length, max_length, min_items, max_items, min_properties,
      max_properties;
  std::optional<std::string> pattern;
  std::optional<std::regex> pattern_regex;
  std::optional<nlohmann::json> default_value;
  bool preserve_unknown_fields = false;
  bool embedded_resource = false;
  bool int_or_string = false;
  std::string list_type;  // "", atomic, set, map
  std::vector<std::string> list_map_keys;
  std::vector<std::shared_ptr<const SchemaNode>> all_of, any_of, one_of;
  std::shared_ptr<const SchemaNode> not_schema;
  std::vector<ValidationRule> rules;
  bool has_rules_below = false;  // this node or any descendant has rules
};

// The JSON type name kube-openapi reports for a value: string, integer, number, boolean,
// object, array, null.
std::string jsonTypeName(const nlohmann::json& value);

}  // namespace troupe::openapi

namespace troupe::openapi {

// Schema checks (no CEL) of `value` against `node`, appending field errors; `path` is the
// field path of value ("" at the root of a custom resource).
void validateSchema(const SchemaNode& node, const nlohmann::json& value, const std::string& path,
                    bool is_root, std::vector<Error>& errors);
// x-kubernetes-list-type uniqueness (set / map keys).
void validateListTypes(const SchemaNode& node, const nlohmann::json& value, const std::string& path,
                       std::vector<Error>& errors);
// x-kubernetes-validations rules, with oldSelf correlated where the apiserver correlates.
void validateRules(const SchemaNode& node, const nlohmann::json& value,
                   const nlohmann::json* old_value, const std::string& path,
                   std::vector<Error>& errors);
// Removes unknown fields below `value`, recording their paths.
void pruneValue(const SchemaNode& node, nlohmann::json& value, const std::string& path,
                bool is_root, std::vector<std::string>& removed);
// Fills defaults below `value`.
void defaultValue(const SchemaNode& node, nlohmann::json& value);

}  // namespace troupe::openapi
