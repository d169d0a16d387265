#include <catch2/catch.hpp>

#include "api/timestamp.h"

namespace troupe::api {
namespace {

TEST_CASE("timestamps parse as RFC 3339 and print as Kubernetes writes them", "[api][timestamp]") {
  struct Case {
    std::string name;
    std::string input;
    std::string want_printed;  // empty: invalid
  };
  std::vector<Case> cases = {
      {"UTC with Z", "2025-01-01T00:00:00Z", "2025-01-01T00:00:00Z"},
      {"a fraction is kept in the value, dropped when printed", "2026-11-23T02:01:52.123456Z",
       "2026-11-23T02:01:52Z"},
      {"a positive offset moves back to UTC", "2025-01-01T02:30:00+02:30", "2025-01-01T00:00:00Z"},
      {"a negative offset moves forward", "2024-12-31T19:00:00-05:00", "2025-01-01T00:00:00Z"},
      {"a leap year day", "2024-02-29T12:00:00Z", "2024-02-29T12:00:00Z"},
      {"no time", "2025-01-01", ""},
      {"no zone", "2025-01-01T00:00:00", ""},
      {"month 13", "2025-13-01T00:00:00Z", ""},
      {"words", "yesterday", ""},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      auto t = parseTimestamp(tc.input, "status.startedAt");
      if (tc.want_printed.empty()) {
        REQUIRE_FALSE(t.ok());
        CHECK(t.error().field_path == "status.startedAt");
      } else {
        REQUIRE(t.ok());
        CHECK(formatTimestamp(*t) == tc.want_printed);
      }
    }
  }
  auto fraction = parseTimestamp("2025-01-01T00:00:00.5Z");
  auto whole = parseTimestamp("2025-01-01T00:00:00Z");
  REQUIRE((fraction.ok() && whole.ok()));
  CHECK(*fraction - *whole == std::chrono::milliseconds(500));
}

TEST_CASE("a bad timestamp is reported in the schema's words", "[api][timestamp]") {
  std::vector<Error> errors;
  validateTimestamp("", "status.queuedAt", errors);
  validateTimestamp("soon", "status.queuedAt", errors);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].describe() ==
        "status.queuedAt: Invalid value: \"soon\": status.queuedAt in body must be of type "
        "date-time: \"soon\"");
}

}  // namespace
}  // namespace troupe::api
