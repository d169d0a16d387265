#include <catch2/catch.hpp>

#include "openapi/schema.h"

namespace troupe::openapi {
namespace {

using nlohmann::json;

const std::string kRoot = "spec.versions[0].schema.openAPIV3Schema";

json withSpec(json spec) {
  return {{"type", "object"}, {"properties", {{"spec", std::move(spec)}}}};
}

TEST_CASE("a structural schema loads", "[openapi][structural]") {
  json schema = withSpec(
      {{"type", "object"},
       {"required", {"replicas"}},
       {"properties",
        {{"replicas", {{"type", "integer"}, {"minimum", 1}, {"default", 1}}},
         {"port", {{"x-kubernetes-int-or-string", true}}},
         {"template", {{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}}},
         {"limits", {{"type", "object"}, {"additionalProperties", {{"type", "string"}}}}}}}});
  auto loaded = Schema::fromJson(schema, kRoot);
  REQUIRE(loaded.ok());
  CHECK(Schema::check(schema, kRoot).empty());
  CHECK_FALSE(loaded->hasValidationRules());
}

TEST_CASE("schemas that are not structural are refused with the apiserver's field paths",
          "[openapi][structural]") {
  struct Case {
    std::string name;
    json schema;
    std::string want_field;
    std::string want_message;
  };
  const std::string spec = kRoot + ".properties[spec]";
  std::vector<Case> cases = {
      {"the root must be an object",
       {{"type", "string"}},
       kRoot + ".type",
       "Invalid value: \"string\": must be object at the root"},
      {"a property without a type", withSpec({{"properties", {{"a", {{"type", "string"}}}}}}),
       spec + ".type", "Required value: must not be empty for specified object fields"},
      {"array items without a type", withSpec({{"type", "array"}, {"items", {{"minLength", 1}}}}),
       spec + ".items.type", "Required value: must not be empty for specified array items"},
      {"an array without items", withSpec({{"type", "array"}}), spec + ".items",
       "Required value: must be specified for arrays"},
      {"preserve-unknown-fields false",
       withSpec({{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", false}}),
       spec + ".x-kubernetes-preserve-unknown-fields",
       "Invalid value: false: must be true or undefined"},
      {"int-or-string with a type",
       withSpec({{"type", "string"}, {"x-kubernetes-int-or-string", true}}), spec + ".type",
       "Invalid value: \"string\": must be empty if x-kubernetes-int-or-string is true"},
      {"properties and additionalProperties together",
       withSpec({{"type", "object"},
                 {"properties", {{"a", {{"type", "string"}}}}},
                 {"additionalProperties", {{"type", "string"}}}}),
       spec + ".additionalProperties",
       "Forbidden: additionalProperties and properties are mutual exclusive"},
      {"uniqueItems",
       withSpec({{"type", "array"}, {"items", {{"type", "string"}}}, {"uniqueItems", true}}),
       spec + ".uniqueItems",
       "Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes "
       "quadratic"},
      {"$ref", withSpec({{"$ref", "#/definitions/x"}}), spec + ".$ref",
       "Forbidden: $ref is not supported"},
      {"a type inside anyOf", withSpec({{"type", "object"}, {"anyOf", {{{"type", "object"}}}}}),
       spec + ".anyOf[0].type", "Forbidden: must be empty to be structural"},
      {"root metadata beyond name and generateName",
       {{"type", "object"},
        {"properties",
         {{"metadata", {{"type", "object"}, {"properties", {{"labels", {{"type", "object"}}}}}}}}}},
       kRoot + ".properties[metadata]",
       "Forbidden: must not specify anything other than name and generateName, but metadata is "
       "implicitly specified"},
      {"an embedded resource that is not an object",
       withSpec({{"type", "string"}, {"x-kubernetes-embedded-resource", true}}), spec + ".type",
       "Invalid value: \"string\": must be object if x-kubernetes-embedded-resource is true"},
      {"an unknown list type",
       withSpec(
           {{"type", "array"}, {"items", {{"type", "string"}}}, {"x-kubernetes-list-type", "bag"}}),
       spec + ".x-kubernetes-list-type",
       "Unsupported value: \"bag\": supported values: \"atomic\", \"set\", \"map\""},
      {"a map list without keys",
       withSpec({{"type", "array"},
                 {"items", {{"type", "object"}, {"properties", {{"name", {{"type", "string"}}}}}}},
                 {"x-kubernetes-list-type", "map"}}),
       spec + ".x-kubernetes-list-map-keys",
       "Required value: must not be empty if x-kubernetes-list-type is map"},
      {"a default that breaks its own schema",
       withSpec({{"type", "integer"}, {"minimum", 1}, {"default", 0}}), spec + ".default",
       "Invalid value: 0: default: Invalid value: 0: default in body should be greater than or "
       "equal to 1"},
      {"a pattern that is not a regular expression",
       withSpec({{"type", "string"}, {"pattern", "(unclosed"}}), spec + ".pattern", ""},
      {"a CEL rule outside the subset",
       withSpec(
           {{"type", "object"}, {"x-kubernetes-validations", {{{"rule", "self.all(x, x > 0)"}}}}}),
       spec + ".x-kubernetes-validations[0].rule", "Invalid value: \"self.all(x, x > 0)\""},
      {"a CEL rule naming a field the schema lacks",
       withSpec({{"type", "object"},
                 {"properties", {{"replicas", {{"type", "integer"}}}}},
                 {"x-kubernetes-validations", {{{"rule", "self.replicsa > 0"}}}}}),
       spec + ".x-kubernetes-validations[0].rule",
       "Invalid value: \"self.replicsa > 0\": compilation failed: ERROR: <input>: undefined "
       "field 'replicsa'"},
      {"messageExpression",
       withSpec({{"type", "object"},
                 {"x-kubernetes-validations", {{{"rule", "true"}, {"messageExpression", "'x'"}}}}}),
       spec + ".x-kubernetes-validations[0].messageExpression", "Forbidden: messageExpression"},
      {"an unsupported rule reason",
       withSpec({{"type", "object"},
                 {"x-kubernetes-validations", {{{"rule", "true"}, {"reason", "Because"}}}}}),
       spec + ".x-kubernetes-validations[0].reason", "Unsupported value: \"Because\""},
      {"a fieldPath to nowhere",
       withSpec({{"type", "object"},
                 {"properties", {{"a", {{"type", "string"}}}}},
                 {"x-kubernetes-validations", {{{"rule", "true"}, {"fieldPath", ".b"}}}}}),
       spec + ".x-kubernetes-validations[0].fieldPath",
       "Invalid value: \".b\": fieldPath must refer to an existing field: no such field 'b'"},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      auto errors = Schema::check(tc.schema, kRoot);
      REQUIRE_FALSE(errors.empty());
      CHECK(errors[0].field_path == tc.want_field);
      CHECK_THAT(errors[0].message, Catch::StartsWith(tc.want_message));
      auto loaded = Schema::fromJson(tc.schema, kRoot);
      REQUIRE_FALSE(loaded.ok());
      CHECK(loaded.error().field_path == tc.want_field);
    }
  }
}

}  // namespace
}  // namespace troupe::openapi
