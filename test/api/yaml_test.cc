#include <catch2/catch.hpp>

#include "api/yaml.h"

namespace troupe::api {
namespace {

using nlohmann::json;

TEST_CASE("YAML scalars resolve to the JSON types Kubernetes sees", "[api][yaml]") {
  struct Case {
    std::string name;
    std::string yaml;  // the value of key `v`
    json want;
  };
  std::vector<Case> cases = {
      {"a plain integer is an int", "8", 8},
      {"a quoted integer stays a string", "\"8\"", "8"},
      {"a single-quoted integer stays a string", "'8'", "8"},
      {"a quantity is a string", "64Gi", "64Gi"},
      {"milli-cpu is a string", "500m", "500m"},
      {"a negative integer", "-3", -3},
      {"hexadecimal", "0x1F", 31},
      {"leading-zero octal, as YAML 1.1 reads it", "0755", 493},
      {"underscores in numbers", "1_000", 1000},
      {"a float", "1.5", 1.5},
      {"an integral float becomes an int, as after Go's JSON round trip", "1e3", 1000},
      {"true", "true", true},
      {"yes is a bool in YAML 1.1", "yes", true},
      {"NO is a bool too", "NO", false},
      {"off is false", "off", false},
      {"a tilde is null", "~", nullptr},
      {"an empty value is null", "", nullptr},
      {"an explicit !!str tag wins", "!!str 42", "42"},
      {"a version-like string", "1.2.3", "1.2.3"},
      {"a date stays a string", "2025-01-01", "2025-01-01"},
      {"a label value with a colon-free word", "gold", "gold"},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      auto doc = parseYaml("v: " + tc.yaml + "\n");
      REQUIRE(doc.ok());
      CHECK((*doc)["v"] == tc.want);
      CHECK((*doc)["v"].type() == tc.want.type());
    }
  }
}

TEST_CASE("multi-document YAML keeps every document in order and skips empty ones", "[api][yaml]") {
  auto docs = parseYamlDocuments(
      "---\nkind: Namespace\nmetadata: {name: a}\n---\n---\nkind: Queue\nspec:\n  "
      "resources:\n    nvidia.com/gpu: {limit: 8}\n...\n");
  REQUIRE(docs.ok());
  REQUIRE(docs->size() == 2);
  CHECK((*docs)[0]["kind"] == "Namespace");
  CHECK((*docs)[1]["spec"]["resources"]["nvidia.com/gpu"]["limit"] == 8);
}

TEST_CASE("bad YAML is an error with its line, never an exception", "[api][yaml]") {
  struct Case {
    std::string name;
    std::string yaml;
    std::string want;
  };
  std::vector<Case> cases = {
      {"a duplicate key", "a: 1\na: 2\n", "line 2, column 1: mapping key \"a\" already defined"},
      {"an unclosed flow sequence", "a: [1, 2\n", "yaml: line"},
      {"bad indentation", "a:\n  b: 1\n c: 2\n", "yaml: line"},
      {"an infinity cannot be JSON", "a: .inf\n", "cannot be represented in JSON"},
      {"a bad !!int", "a: !!int x\n", "as a !!int"},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      auto docs = parseYamlDocuments(tc.yaml);
      REQUIRE_FALSE(docs.ok());
      CHECK(docs.error().code == ErrorCode::BadRequest);
      CHECK_THAT(docs.error().message, Catch::Contains(tc.want));
    }
  }
  auto two = parseYaml("a: 1\n---\nb: 2\n");
  REQUIRE_FALSE(two.ok());
  CHECK_THAT(two.error().message, Catch::Contains("expected one document, found 2"));
  auto json_error = parseJson("{\"apiVersion\":");
  REQUIRE_FALSE(json_error.ok());
  CHECK(json_error.error().code == ErrorCode::BadRequest);
}

}  // namespace
}  // namespace troupe::api
