#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <string>
#include <vector>

#include "apiserver/handlers/yaml_json.h"

namespace troupe::apiserver {
namespace {

using json = nlohmann::json;

// Ten anchors each listing the one before nine times: 9^9 (387 million) strings once
// expanded, from 546 bytes of text: the YAML bomb that took a server past 3 GB.
std::string aliasBomb() {
  std::string text =
      "a0: &a0 [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n";
  for (int i = 1; i <= 9; ++i) {
    std::string prev = "*a" + std::to_string(i - 1);
    text += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int j = 0; j < 9; ++j) text += (j ? "," : "") + prev;
    text += "]\n";
  }
  return text;
}

std::string nestedFlow(std::size_t depth) {
  return "x: " + std::string(depth, '[') + "1" + std::string(depth, ']');
}

std::string nestedBlock(std::size_t depth) {
  std::string text;
  for (std::size_t i = 0; i < depth; ++i) text += std::string(i, ' ') + "k:\n";
  return text + std::string(depth, ' ') + "v: 1\n";
}

TEST_CASE("a YAML alias bomb is refused as kubectl refuses it, cheaply", "[apiserver][yaml]") {
  const std::string bomb = aliasBomb();
  CHECK(bomb.size() < 600);
  auto start = std::chrono::steady_clock::now();
  auto docs = yamlDocumentsToJson(bomb);
  auto took = std::chrono::steady_clock::now() - start;
  REQUIRE_FALSE(docs.ok());
  CHECK(docs.error().code == ErrorCode::BadRequest);
  CHECK_THAT(docs.error().message, Catch::Matchers::Contains("excessive aliasing"));
  // Refused after about a thousand nodes, not 387 million.
  CHECK(took < std::chrono::seconds(1));
}

TEST_CASE("a YAML document that uses anchors as manifests do reads whole", "[apiserver][yaml]") {
  auto docs = yamlDocumentsToJson(
      "env: &env [{name: A, value: '1'}, {name: B, value: '2'}]\n"
      "containers:\n"
      "- {name: a, env: *env}\n"
      "- {name: b, env: *env}\n");
  REQUIRE(docs.ok());
  REQUIRE(docs->size() == 1);
  const json& doc = docs->front();
  CHECK(doc["containers"][1]["env"] == doc["env"]);
  CHECK(doc["containers"][0]["env"][1]["value"] == "2");
}

TEST_CASE("YAML nests at most 400 sequences and mappings", "[apiserver][yaml][limits]") {
  // The document's root mapping is one level: 399 more fit, 400 more do not. (yaml-cpp's
  // own guard would stop at about 500.)
  for (auto make : {nestedFlow, nestedBlock}) {
    auto at_limit = yamlDocumentsToJson(make(kMaxYamlDepth - 1));
    CHECK(at_limit.ok());
    auto beyond = yamlDocumentsToJson(make(kMaxYamlDepth));
    REQUIRE_FALSE(beyond.ok());
    CHECK_THAT(beyond.error().message, Catch::Matchers::Contains("exceeded max depth of 400"));
    // Where yaml-cpp's guard comes first, the refusal reads the same.
    auto guarded = yamlDocumentsToJson(make(600), YamlLimits{1000, 1 << 20});
    REQUIRE_FALSE(guarded.ok());
    CHECK_THAT(guarded.error().message, Catch::Matchers::Contains("exceeded max depth"));
  }
  // 3 MB of brackets cost no more than the first thousand.
  CHECK_FALSE(yamlDocumentsToJson(std::string(3 << 20, '[')).ok());
}

TEST_CASE("a YAML document larger than the limit once decoded is refused", "[apiserver][yaml]") {
  // 40 aliases of a 1 KB anchor: well within the alias ratio, 41 KB decoded.
  std::string text = "base: &b '" + std::string(1000, 'x') + "'\nlist:\n";
  for (int i = 0; i < 40; ++i) text += "- *b\n";
  CHECK(yamlDocumentsToJson(text, YamlLimits{kMaxYamlDepth, 50000}).ok());
  auto refused = yamlDocumentsToJson(text, YamlLimits{kMaxYamlDepth, 30000});
  REQUIRE_FALSE(refused.ok());
  CHECK_THAT(refused.error().message, Catch::Matchers::Contains("exceeds 30000 bytes"));
  // Anchors nested in anchors: each kept copy counts, so a chain costs what it holds.
  std::string chain = "x: ";
  for (int i = 0; i < 390; ++i) chain += "&a" + std::to_string(i) + " [";
  chain += "1" + std::string(390, ']');
  auto nested = yamlDocumentsToJson(chain, YamlLimits{kMaxYamlDepth, 100000});
  REQUIRE_FALSE(nested.ok());
  CHECK_THAT(nested.error().message, Catch::Matchers::Contains("exceeds 100000 bytes"));
}

TEST_CASE("YAML scalars are typed as kube-apiserver types them", "[apiserver][yaml]") {
  auto docs = yamlDocumentsToJson(
      "int: 42\nneg: -7\nbig: 99999999999999999999\nfloat: 1.5\nhuge: 1.0e400\n"
      "quoted: '42'\nyes: true\nnothing: ~\nword: hello\nempty:\n");
  REQUIRE(docs.ok());
  const json& doc = docs->front();
  CHECK(doc["int"] == 42);
  CHECK(doc["neg"] == -7);
  CHECK(doc["big"].is_number_float());  // beyond 64 bits: a float, as go-yaml reads it
  CHECK(doc["float"] == 1.5);
  CHECK(doc["huge"] == "1.0e400");  // beyond a double: the string it is, as go-yaml reads it
  CHECK(doc["quoted"] == "42");
  CHECK(doc["yes"] == true);
  CHECK(doc["nothing"].is_null());
  CHECK(doc["word"] == "hello");
  CHECK(doc["empty"].is_null());
  // A long run of digits is read in one pass (a backtracking regex recursed once a digit).
  auto digits = yamlDocumentsToJson("n: " + std::string(1 << 20, '7'));
  REQUIRE(digits.ok());
  CHECK(digits->front()["n"].is_string());
}

TEST_CASE("YAML that is not UTF-8 or has a non-scalar key is refused", "[apiserver][yaml]") {
  for (const std::string text :
       {"a: \"\xff\"\n", "a: b\xc3\n", "? [a]\n: b\n", "? {a: 1}\n: b\n"}) {
    INFO(text);
    auto docs = yamlDocumentsToJson(text);
    REQUIRE_FALSE(docs.ok());
    CHECK(docs.error().code == ErrorCode::BadRequest);
  }
}

}  // namespace
}  // namespace troupe::apiserver
