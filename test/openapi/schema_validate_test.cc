#include <catch2/catch.hpp>

#include "openapi/schema.h"

namespace troupe::openapi {
namespace {

using nlohmann::json;

Schema load(const json& spec) {
  auto schema = Schema::fromJson({{"type", "object"}, {"properties", {{"spec", spec}}}});
  REQUIRE(schema.ok());
  return *schema;
}

json resource(json spec) {
  return {{"apiVersion", "troupe.dev/v1alpha1"},
          {"kind", "TrainingJob"},
          {"metadata", {{"name", "x"}}},
          {"spec", std::move(spec)}};
}

struct KeywordCase {
  std::string name;
  json schema;  // the schema of spec.f
  json value;   // spec.f
  std::string want_field;
  std::string want_message;  // empty: valid
};

TEST_CASE("each schema keyword rejects what the apiserver rejects, in its words",
          "[openapi][validate]") {
  const json str = {{"type", "string"}};
  std::vector<KeywordCase> cases = {
      {"a string where an integer belongs",
       {{"type", "integer"}},
       "two",
       "spec.f",
       "Invalid value: \"string\": spec.f in body must be of type integer: \"string\""},
      {"a fraction where an integer belongs",
       {{"type", "integer"}},
       1.5,
       "spec.f",
       "Invalid value: \"number\": spec.f in body must be of type integer: \"number\""},
      {"an integral float counts as an integer", {{"type", "integer"}}, 2.0, "", ""},
      {"an integer is a number", {{"type", "number"}}, 2, "", ""},
      {"null where not nullable",
       {{"type", "string"}},
       nullptr,
       "spec.f",
       "Invalid value: \"null\": spec.f in body must be of type string: \"null\""},
      {"null where nullable", {{"type", "string"}, {"nullable", true}}, nullptr, "", ""},
      {"enum",
       {{"type", "string"}, {"enum", {"Required", "Preferred"}}},
       "Maybe",
       "spec.f",
       "Unsupported value: \"Maybe\": supported values: \"Required\", \"Preferred\""},
      {"integer enum values are quoted JSON",
       {{"type", "integer"}, {"enum", {1, 2}}},
       3,
       "spec.f",
       "Unsupported value: 3: supported values: \"1\", \"2\""},
      {"minimum",
       {{"type", "integer"}, {"minimum", 1}},
       0,
       "spec.f",
       "Invalid value: 0: spec.f in body should be greater than or equal to 1"},
      {"exclusive minimum",
       {{"type", "number"}, {"minimum", 0}, {"exclusiveMinimum", true}},
       0,
       "spec.f",
       "Invalid value: 0: spec.f in body should be greater than 0"},
      {"maximum",
       {{"type", "integer"}, {"maximum", 10}},
       11,
       "spec.f",
       "Invalid value: 11: spec.f in body should be less than or equal to 10"},
      {"exclusive maximum",
       {{"type", "number"}, {"maximum", 1.5}, {"exclusiveMaximum", true}},
       1.5,
       "spec.f",
       "Invalid value: 1.5: spec.f in body should be less than 1.5"},
      {"multipleOf",
       {{"type", "integer"}, {"multipleOf", 8}},
       12,
       "spec.f",
       "Invalid value: 12: spec.f in body should be a multiple of 8"},
      {"minLength",
       {{"type", "string"}, {"minLength", 1}},
       "",
       "spec.f",
       "Invalid value: \"\": spec.f in body should be at least 1 chars long"},
      {"maxLength counts characters, not bytes",
       {{"type", "string"}, {"maxLength", 2}},
       "éé",
       "",
       ""},
      {"maxLength",
       {{"type", "string"}, {"maxLength", 3}},
       "abcd",
       "spec.f",
       "Too long: may not be longer than 3"},
      {"pattern",
       {{"type", "string"}, {"pattern", "^[a-z]+$"}},
       "A1",
       "spec.f",
       "Invalid value: \"A1\": spec.f in body should match '^[a-z]+$'"},
      {"date-time format",
       {{"type", "string"}, {"format", "date-time"}},
       "yesterday",
       "spec.f",
       "Invalid value: \"yesterday\": spec.f in body must be of type date-time: \"yesterday\""},
      {"a valid date-time",
       {{"type", "string"}, {"format", "date-time"}},
       "2025-01-01T00:00:00Z",
       "",
       ""},
      {"unknown formats are ignored", {{"type", "string"}, {"format", "color"}}, "blue", "", ""},
      {"minItems",
       {{"type", "array"}, {"items", str}, {"minItems", 1}},
       json::array(),
       "spec.f",
       "Invalid value: 0: spec.f in body should have at least 1 items"},
      {"maxItems",
       {{"type", "array"}, {"items", str}, {"maxItems", 1}},
       {"a", "b"},
       "spec.f",
       "Too many: 2: must have at most 1 items"},
      {"array items are checked with their index",
       {{"type", "array"}, {"items", str}},
       {"a", 1},
       "spec.f[1]",
       "Invalid value: \"integer\": spec.f[1] in body must be of type string: \"integer\""},
      {"minProperties",
       {{"type", "object"}, {"additionalProperties", str}, {"minProperties", 1}},
       json::object(),
       "spec.f",
       "Invalid value: 0: spec.f in body should have at least 1 properties"},
      {"maxProperties",
       {{"type", "object"}, {"additionalProperties", str}, {"maxProperties", 1}},
       {{"a", "x"}, {"b", "y"}},
       "spec.f",
       "Too many: 2: must have at most 1 items"},
      {"map values are checked under their key",
       {{"type", "object"}, {"additionalProperties", str}},
       {{"nvidia.com/gpu", 8}},
       "spec.f.nvidia.com/gpu",
       "Invalid value: \"integer\": spec.f.nvidia.com/gpu in body must be of type string: "
       "\"integer\""},
      {"required",
       {{"type", "object"}, {"required", {"name"}}, {"properties", {{"name", str}}}},
       json::object(),
       "spec.f.name",
       "Required value"},
      {"int-or-string takes an int", {{"x-kubernetes-int-or-string", true}}, 8, "", ""},
      {"int-or-string takes a string", {{"x-kubernetes-int-or-string", true}}, "50%", "", ""},
      {"int-or-string refuses a bool",
       {{"x-kubernetes-int-or-string", true}},
       true,
       "spec.f",
       "Invalid value: \"boolean\": spec.f in body must be of type integer,string: \"boolean\""},
      {"a set list refuses duplicates",
       {{"type", "array"}, {"items", str}, {"x-kubernetes-list-type", "set"}},
       {"a", "b", "a"},
       "spec.f[2]",
       "Duplicate value: \"a\""},
      {"a map list refuses duplicate keys",
       {{"type", "array"},
        {"x-kubernetes-list-type", "map"},
        {"x-kubernetes-list-map-keys", {"type"}},
        {"items", {{"type", "object"}, {"required", {"type"}}, {"properties", {{"type", str}}}}}},
       {{{"type", "Ready"}}, {{"type", "Ready"}}},
       "spec.f[1]",
       "Duplicate value: {\"type\":\"Ready\"}"},
      {"an embedded resource needs apiVersion and kind",
       {{"type", "object"},
        {"x-kubernetes-embedded-resource", true},
        {"x-kubernetes-preserve-unknown-fields", true}},
       {{"kind", "Pod"}},
       "spec.f.apiVersion",
       "Required value: must not be empty"},
      {"anyOf needs one match",
       {{"type", "string"}, {"anyOf", {{{"pattern", "^a"}}, {{"pattern", "^b"}}}}},
       "c",
       "spec.f",
       "Invalid value: \"c\": must validate at least one schema (anyOf)"},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      auto schema = load({{"type", "object"}, {"properties", {{"f", tc.schema}}}});
      auto errors = schema.validate(resource({{"f", tc.value}}));
      if (tc.want_message.empty()) {
        CHECK(errors.empty());
      } else {
        REQUIRE(errors.size() == 1);
        CHECK(errors[0].field_path == tc.want_field);
        CHECK(errors[0].message == tc.want_message);
      }
    }
  }
}

TEST_CASE("CEL rules report on the node that holds them, with message or the rule text",
          "[openapi][validate][cel]") {
  auto schema = load({{"type", "object"},
                      {"properties",
                       {{"replicas", {{"type", "integer"}}},
                        {"minReplicas", {{"type", "integer"}}},
                        {"queue",
                         {{"type", "string"},
                          {"x-kubernetes-validations",
                           {{{"rule", "self == oldSelf"}, {"message", "queue is immutable"}}}}}}}},
                      {"x-kubernetes-validations",
                       {{{"rule", "!has(self.minReplicas) || self.minReplicas <= self.replicas"},
                         {"message", "minReplicas must be <= replicas"}},
                        {{"rule", "self.replicas <= 1000"}},
                        {{"rule", "self.replicas != 13"},
                         {"fieldPath", ".replicas"},
                         {"reason", "FieldValueForbidden"},
                         {"message", "unlucky"}}}}});
  CHECK(schema.hasValidationRules());

  auto bad_min = schema.validate(resource({{"replicas", 2}, {"minReplicas", 3}, {"queue", "a"}}));
  REQUIRE(bad_min.size() == 1);
  CHECK(bad_min[0].field_path == "spec");
  CHECK(bad_min[0].message == "Invalid value: \"object\": minReplicas must be <= replicas");

  auto too_many = schema.validate(resource({{"replicas", 2000}, {"queue", "a"}}));
  REQUIRE(too_many.size() == 1);
  CHECK(too_many[0].message == "Invalid value: \"object\": failed rule: self.replicas <= 1000");

  auto forbidden = schema.validate(resource({{"replicas", 13}, {"queue", "a"}}));
  REQUIRE(forbidden.size() == 1);
  CHECK(forbidden[0].field_path == "spec.replicas");
  CHECK(forbidden[0].message == "Forbidden: unlucky");

  // Transition rules run only on update, against the correlated old value.
  json old_object = resource({{"replicas", 2}, {"queue", "a"}});
  json changed = resource({{"replicas", 2}, {"queue", "b"}});
  CHECK(schema.validate(changed).empty());
  auto immutable = schema.validate(changed, &old_object);
  REQUIRE(immutable.size() == 1);
  CHECK(immutable[0].field_path == "spec.queue");
  CHECK(immutable[0].message == "Invalid value: \"string\": queue is immutable");

  // A rule that fails to evaluate is an error, never a pass.
  auto schema2 = load({{"type", "object"},
                       {"properties", {{"replicas", {{"type", "integer"}}}}},
                       {"x-kubernetes-validations", {{{"rule", "self.replicas > 0"}}}}});
  auto missing = schema2.validate(resource(json::object()));
  REQUIRE(missing.size() == 1);
  CHECK(missing[0].message ==
        "Invalid value: \"object\": no such key: replicas evaluating rule: self.replicas > 0");
}

TEST_CASE("blocking schema errors skip CEL rules with the apiserver's note",
          "[openapi][validate][cel]") {
  auto schema = load({{"type", "object"},
                      {"required", {"replicas"}},
                      {"properties", {{"replicas", {{"type", "integer"}, {"minimum", 1}}}}},
                      {"x-kubernetes-validations", {{{"rule", "self.replicas < 10"}}}}});
  // minimum is not blocking: the rule still runs.
  auto not_blocking = schema.validate(resource({{"replicas", 0}}));
  REQUIRE(not_blocking.size() == 1);
  CHECK(not_blocking[0].field_path == "spec.replicas");
  // A missing required field is blocking.
  auto blocking = schema.validate(resource(json::object()));
  REQUIRE(blocking.size() == 2);
  CHECK(blocking[0].field_path == "spec.replicas");
  CHECK(blocking[1].field_path == "<nil>");
  CHECK(blocking[1].message ==
        "Invalid value: \"null\": some validation rules were not checked because the object was "
        "invalid; correct the existing errors to complete validation");
}

TEST_CASE("pruning drops unknown fields and keeps what the schema or its markers allow",
          "[openapi][prune]") {
  auto schema =
      load({{"type", "object"},
            {"properties",
             {{"known", {{"type", "string"}}},
              {"free", {{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}}},
              {"list",
               {{"type", "array"},
                {"items", {{"type", "object"}, {"properties", {{"a", {{"type", "string"}}}}}}}}},
              {"embedded",
               {{"type", "object"},
                {"x-kubernetes-embedded-resource", true},
                {"properties", {{"spec", {{"type", "object"}}}}}}}}}});
  json obj = resource({{"known", "k"},
                       {"unknownField", true},
                       {"free", {{"anything", {{"goes", 1}}}}},
                       {"list", {{{"a", "x"}, {"b", "y"}}}},
                       {"embedded",
                        {{"apiVersion", "v1"},
                         {"kind", "Pod"},
                         {"metadata", {{"name", "p"}, {"bogus", 1}}},
                         {"spec", json::object()},
                         {"extra", 1}}}});
  obj["metadata"]["nonsense"] = 1;
  obj["status"] = {{"phase", "x"}};
  auto removed = schema.prune(obj);
  std::vector<std::string> want = {
      "metadata.nonsense", "spec.embedded.extra", "spec.embedded.metadata.bogus",
      "spec.list[0].b",    "spec.unknownField",   "status"};
  std::sort(removed.begin(), removed.end());
  CHECK(removed == want);
  CHECK(obj["spec"]["free"]["anything"]["goes"] == 1);
  CHECK(obj["spec"]["embedded"]["kind"] == "Pod");
  CHECK(obj["apiVersion"] == "troupe.dev/v1alpha1");
}

TEST_CASE("defaults fill missing and null fields without creating parents", "[openapi][defaults]") {
  auto schema =
      load({{"type", "object"},
            {"properties",
             {{"suspend", {{"type", "boolean"}, {"default", false}}},
              {"mode", {{"type", "string"}, {"nullable", true}, {"default", "Required"}}},
              {"restartPolicy",
               {{"type", "object"},
                {"default", json::object()},
                {"properties", {{"maxRestarts", {{"type", "integer"}, {"default", 3}}}}}}},
              {"topology",
               {{"type", "object"},
                {"properties", {{"mode", {{"type", "string"}, {"default", "Preferred"}}}}}}},
              {"items",
               {{"type", "array"},
                {"items",
                 {{"type", "object"},
                  {"properties", {{"w", {{"type", "integer"}, {"default", 1}}}}}}}}}}}});
  json obj =
      resource({{"suspend", nullptr}, {"mode", nullptr}, {"items", {json::object(), {{"w", 5}}}}});
  schema.applyDefaults(obj);
  CHECK(obj["spec"]["suspend"] == false);                   // null and not nullable: defaulted
  CHECK(obj["spec"]["mode"].is_null());                     // nullable null stays null
  CHECK(obj["spec"]["restartPolicy"]["maxRestarts"] == 3);  // defaulted parent, then its child
  CHECK_FALSE(obj["spec"].contains("topology"));            // no parent is created
  CHECK(obj["spec"]["items"][0]["w"] == 1);
  CHECK(obj["spec"]["items"][1]["w"] == 5);
}

}  // namespace
}  // namespace troupe::openapi
