#include <catch2/catch.hpp>

#include "api/names.h"

namespace troupe::api {
namespace {

TEST_CASE("object names are DNS subdomains: labels of a-z, 0-9 and '-' joined by dots",
          "[api][names]") {
  struct Case {
    std::string name;
    std::string value;
    bool want_valid;
  };
  const std::vector<Case> cases = {
      {"one label", "train-a", true},
      {"digits first", "123-abc", true},
      {"dotted", "example.com", true},
      {"one character", "a", true},
      {"253 characters", std::string(251, 'a') + ".b", true},
      {"empty", "", false},
      {"upper case", "Train", false},
      {"underscore", "train_a", false},
      {"leading dash", "-a", false},
      {"trailing dash", "a-", false},
      {"a label ending in a dash before a dot", "a-.b", false},
      {"a label starting with a dash after a dot", "a.-b", false},
      {"two dots", "a..b", false},
      {"leading dot", ".a", false},
      {"trailing dot", "a.", false},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) { CHECK(checkDnsSubdomain(tc.value).has_value() == !tc.want_valid); }
  }
  CHECK(checkDnsSubdomain(std::string(254, 'a')) == "must be no more than 253 characters");
  CHECK_THAT(checkDnsSubdomain("a_b").value(),
             Catch::StartsWith("a lowercase RFC 1123 subdomain must consist of"));
}

TEST_CASE("namespaces and container names are DNS labels: no dots, at most 63 characters",
          "[api][names]") {
  CHECK_FALSE(checkDnsLabel("team-a").has_value());
  CHECK_FALSE(checkDnsLabel(std::string(63, 'a')).has_value());
  CHECK(checkDnsLabel(std::string(64, 'a')) == "must be no more than 63 characters");
  for (const char* bad : {"", "a.b", "-a", "a-", "A"}) {
    DYNAMIC_SECTION("'" << bad << "'") {
      CHECK_THAT(checkDnsLabel(bad).value(),
                 Catch::StartsWith("a lowercase RFC 1123 label must consist of"));
    }
  }
}

}  // namespace
}  // namespace troupe::api
