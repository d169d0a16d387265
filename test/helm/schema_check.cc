#include "test/helm/schema_check.h"

#include <regex>

#include <fmt/format.h>

namespace troupe::helm_test {
namespace {

enum class Kind { Null, Boolean, Integer, Number, String, Object, Array };

Kind kindOf(const YAML::Node& node) {
  if (node.IsMap()) return Kind::Object;
  if (node.IsSequence()) return Kind::Array;
  if (node.IsNull()) return Kind::Null;
  if (node.Tag() == "!") return Kind::String;  // quoted
  static const std::regex kBoolean(
      "true|True|TRUE|false|False|FALSE|yes|Yes|YES|no|No|NO|on|On|ON|off|Off|OFF|y|Y|n|N");
  static const std::regex kInteger(R"([-+]?[0-9]+)");
  static const std::regex kNumber(R"([-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?)");
  const auto& text = node.Scalar();
  if (text == "~" || text == "null" || text == "Null" || text == "NULL") return Kind::Null;
  if (std::regex_match(text, kBoolean)) return Kind::Boolean;
  if (std::regex_match(text, kInteger)) return Kind::Integer;
  if (std::regex_match(text, kNumber)) return Kind::Number;
  return Kind::String;
}

bool hasType(Kind kind, const std::string& type) {
  if (type == "object") return kind == Kind::Object;
  if (type == "array") return kind == Kind::Array;
  if (type == "string") return kind == Kind::String;
  if (type == "integer") return kind == Kind::Integer;
  if (type == "number") return kind == Kind::Integer || kind == Kind::Number;
  if (type == "boolean") return kind == Kind::Boolean;
  if (type == "null") return kind == Kind::Null;
  return false;
}

std::string shown(const YAML::Node& node) {
  if (!node.IsScalar()) return node.IsMap() ? "object" : node.IsSequence() ? "array" : "null";
  return node.Tag() == "!" ? "\"" + node.Scalar() + "\"" : node.Scalar();
}

std::string child(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

// A local reference "#/definitions/name".
YAML::Node resolve(const YAML::Node& schema, const YAML::Node& root) {
  if (!schema.IsMap() || !schema["$ref"]) return schema;
  auto ref = schema["$ref"].as<std::string>();
  const std::string prefix = "#/definitions/";
  if (ref.rfind(prefix, 0) != 0) return YAML::Node();
  return root["definitions"][ref.substr(prefix.size())];
}

void check(const YAML::Node& value, const YAML::Node& raw_schema, const YAML::Node& root,
           UnknownFields unknown, const std::string& path, std::vector<std::string>& problems) {
  const YAML::Node schema = resolve(raw_schema, root);
  if (!schema.IsMap()) {
    problems.push_back(path + ": the schema has no definition here");
    return;
  }
  if (schema["x-kubernetes-preserve-unknown-fields"].as<bool>(false)) return;
  auto kind = kindOf(value);
  auto where = path.empty() ? std::string("<root>") : path;

  if (schema["x-kubernetes-int-or-string"].as<bool>(false)) {
    if (kind != Kind::Integer && kind != Kind::String)
      problems.push_back(fmt::format("{}: Invalid value: {}: must be an integer or a string", where,
                                     shown(value)));
    // A pattern applies to the string form only (quantities: "16", "1Ti").
    if (kind == Kind::String && schema["pattern"] &&
        !std::regex_search(value.Scalar(), std::regex(schema["pattern"].as<std::string>())))
      problems.push_back(fmt::format("{}: Invalid value: {}: must match {}", where, shown(value),
                                     schema["pattern"].Scalar()));
    return;
  }
  if (schema["type"]) {
    auto type = schema["type"].as<std::string>();
    bool nullable = schema["nullable"].as<bool>(false);
    if (!hasType(kind, type) && !(nullable && kind == Kind::Null)) {
      problems.push_back(
          fmt::format("{}: Invalid value: {}: must be of type {}", where, shown(value), type));
      return;
    }
  }
  if (schema["enum"]) {
    bool found = false;
    std::vector<std::string> allowed;
    for (const auto& option : schema["enum"]) {
      allowed.push_back("\"" + option.Scalar() + "\"");
      found = found || (value.IsScalar() && option.Scalar() == value.Scalar());
    }
    if (!found)
      problems.push_back(fmt::format("{}: Unsupported value: {}: supported values: {}", where,
                                     shown(value), fmt::join(allowed, ", ")));
  }
  if (kind == Kind::Integer || kind == Kind::Number) {
    double number = std::stod(value.Scalar());
    if (schema["minimum"] && number < schema["minimum"].as<double>())
      problems.push_back(fmt::format("{}: Invalid value: {}: must be greater than or equal to {}",
                                     where, value.Scalar(), schema["minimum"].Scalar()));
    if (schema["exclusiveMinimum"] && number <= schema["exclusiveMinimum"].as<double>())
      problems.push_back(fmt::format("{}: Invalid value: {}: must be greater than {}", where,
                                     value.Scalar(), schema["exclusiveMinimum"].Scalar()));
    if (schema["maximum"] && number > schema["maximum"].as<double>())
      problems.push_back(fmt::format("{}: Invalid value: {}: must be less than or equal to {}",
                                     where, value.Scalar(), schema["maximum"].Scalar()));
  }
  if (kind == Kind::String) {
    const auto& text = value.Scalar();
    if (schema["minLength"] && text.size() < schema["minLength"].as<size_t>())
      problems.push_back(fmt::format("{}: Invalid value: {}: must be at least {} characters", where,
                                     shown(value), schema["minLength"].Scalar()));
    if (schema["maxLength"] && text.size() > schema["maxLength"].as<size_t>())
      problems.push_back(fmt::format("{}: Too long: must have at most {} characters", where,
                                     schema["maxLength"].Scalar()));
    if (schema["pattern"] &&
        !std::regex_search(text, std::regex(schema["pattern"].as<std::string>())))
      problems.push_back(fmt::format("{}: Invalid value: {}: must match {}", where, shown(value),
                                     schema["pattern"].Scalar()));
  }
  if (kind == Kind::Array) {
    if (schema["minItems"] && value.size() < schema["minItems"].as<size_t>())
      problems.push_back(
          fmt::format("{}: Required value: at least {} items", where, schema["minItems"].Scalar()));
    if (schema["items"])
      for (size_t i = 0; i < value.size(); ++i)
        check(value[i], schema["items"], root, unknown, fmt::format("{}[{}]", path, i), problems);
  }
  if (kind == Kind::Object) {
    auto properties = schema["properties"];
    auto additional = schema["additionalProperties"];
    for (const auto& entry : value) {
      auto key = entry.first.as<std::string>();
      if (properties && properties[key]) {
        check(entry.second, properties[key], root, unknown, child(path, key), problems);
      } else if (additional && additional.IsMap()) {
        check(entry.second, additional, root, unknown, fmt::format("{}[{}]", path, key), problems);
      } else if ((additional && additional.IsScalar() && !additional.as<bool>()) ||
                 (unknown == UnknownFields::Reported && properties && !additional)) {
        problems.push_back(child(path, key) + ": Unknown field");
      }
    }
    for (const auto& required : schema["required"]) {
      auto key = required.as<std::string>();
      if (!value[key]) problems.push_back(child(path, key) + ": Required value");
    }
  }
}

}  // namespace

std::vector<std::string> schemaProblems(const YAML::Node& value, const YAML::Node& schema,
                                        const YAML::Node& root, UnknownFields unknown,
                                        const std::string& path) {
  std::vector<std::string> problems;
  check(value, schema, root, unknown, path, problems);
  return problems;
}

}  // namespace troupe::helm_test
