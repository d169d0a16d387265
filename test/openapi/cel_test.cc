#include <catch2/catch.hpp>

#include "openapi/cel.h"

namespace troupe::openapi {
namespace {

using nlohmann::json;

struct EvalCase {
  std::string name;
  std::string rule;
  json self;
  std::optional<json> old_self;
  std::optional<bool> want;  // the rule's verdict
  std::string want_error;    // or a runtime error containing this text
};

TEST_CASE("CEL rules in the supported subset evaluate like the apiserver's", "[openapi][cel]") {
  json spec = {{"replicas", 4},
               {"minReplicas", 2},
               {"queue", "team-a"},
               {"tags", {"a", "b"}},
               {"labels", {{"tier", "gold"}}}};
  std::vector<EvalCase> cases = {
      {"min within replicas passes",
       "!has(self.minReplicas) || self.minReplicas <= self.replicas",
       spec,
       {},
       true,
       ""},
      {"min above replicas fails", "self.minReplicas > self.replicas", spec, {}, false, ""},
      {"has() is false for a missing field", "has(self.suspend)", spec, {}, false, ""},
      {"a guard absorbs the missing-field error on the other side",
       "self.suspend == true || self.replicas > 0",
       spec,
       {},
       true,
       ""},
      {"and short-circuits on false either side", "self.nope == 1 && false", spec, {}, false, ""},
      {"int arithmetic", "self.replicas * 2 - self.minReplicas == 6", spec, {}, true, ""},
      {"division and modulus",
       "self.replicas / 3 == 1 && self.replicas % 3 == 1",
       spec,
       {},
       true,
       ""},
      {"operator precedence: * before +, && before ||",
       "1 + 2 * 3 == 7 || false && false",
       spec,
       {},
       true,
       ""},
      {"size of a string, a list and a map",
       "size(self.queue) == 6 && self.tags.size() == 2 && "
       "size(self.labels) == 1",
       spec,
       {},
       true,
       ""},
      {"in on a list literal", "self.queue in ['team-a', 'team-b']", spec, {}, true, ""},
      {"in on a map checks keys",
       "'tier' in self.labels && !('zone' in self.labels)",
       spec,
       {},
       true,
       ""},
      {"string comparison", "self.queue < \"team-b\"", spec, {}, true, ""},
      {"map index", "self.labels['tier'] == 'gold'", spec, {}, true, ""},
      {"ternary", "self.replicas > 2 ? self.minReplicas == 2 : false", spec, {}, true, ""},
      {"int and double compare by value",
       "self.replicas == 4.0 && self.replicas < 4.5",
       spec,
       {},
       true,
       ""},
      {"a transition rule sees oldSelf", "self.queue == oldSelf.queue", spec,
       json{{"queue", "team-b"}}, false, ""},
      {"a missing field is a runtime error",
       "self.suspend",
       spec,
       {},
       std::nullopt,
       "no such key: suspend"},
      {"division by zero", "self.replicas / 0 == 1", spec, {}, std::nullopt, "division by zero"},
      {"int overflow is an error, not a wrap",
       "9223372036854775807 + 1 > 0",
       spec,
       {},
       std::nullopt,
       "integer overflow"},
      {"comparing a string with an int has no overload",
       "self.queue < 3",
       spec,
       {},
       std::nullopt,
       "no matching overload"},
      {"a non-bool result is an error", "self.replicas + 1", spec, {}, std::nullopt, "not a bool"},
      {"the smallest int64 literal is representable",
       "-9223372036854775808 < 0",
       spec,
       {},
       true,
       ""},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      auto program = CelProgram::compile(tc.rule);
      REQUIRE(program.ok());
      auto result = program->evaluate(tc.self, tc.old_self ? &*tc.old_self : nullptr);
      if (tc.want) {
        REQUIRE(result.ok());
        CHECK(*result == *tc.want);
      } else {
        REQUIRE_FALSE(result.ok());
        CHECK_THAT(result.error().message, Catch::Contains(tc.want_error));
      }
    }
  }
}

TEST_CASE("CEL outside the subset is refused when the rule is compiled, never passed",
          "[openapi][cel]") {
  struct Case {
    std::string name;
    std::string rule;
    std::string want_error;
  };
  std::vector<Case> cases = {
      {"a macro such as all()", "self.tags.all(t, t != '')", "function 'all'"},
      {"a global function other than has/size", "matches(self.queue, '^a')", "function 'matches'"},
      {"a string method", "self.queue.startsWith('a')", "function 'startsWith'"},
      {"an unknown variable", "spec.replicas > 0", "undeclared reference to 'spec'"},
      {"a map literal", "{'a': 1} == self.labels", "map literals"},
      {"a raw string", "self.queue == r'a'", "raw and bytes"},
      {"a triple-quoted string", "self.queue == '''a'''", "triple-quoted"},
      {"an unsigned literal", "self.replicas > 1u", "unsigned literals"},
      {"has() on something that is not a field", "has(self)", "invalid argument to has()"},
      {"trailing garbage", "self.replicas > 1 )", "unexpected"},
      {"an unterminated string", "self.queue == 'a", "unterminated string"},
      {"an empty rule", "", "unexpected end"},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      auto program = CelProgram::compile(tc.rule);
      REQUIRE_FALSE(program.ok());
      CHECK_THAT(program.error().message, Catch::Contains("compilation failed"));
      CHECK_THAT(program.error().message, Catch::Contains(tc.want_error));
    }
  }
}

TEST_CASE("a compiled rule reports the self fields it selects and whether it uses oldSelf",
          "[openapi][cel]") {
  auto program = CelProgram::compile("has(self.spec.replicas) && self.spec.replicas == oldSelf.x");
  REQUIRE(program.ok());
  CHECK(program->usesOldSelf());
  // self.spec, self.spec.replicas (twice)
  std::vector<std::vector<std::string>> want = {
      {"spec"}, {"spec", "replicas"}, {"spec"}, {"spec", "replicas"}};
  CHECK(program->selfFieldChains() == want);
}

}  // namespace
}  // namespace troupe::openapi
