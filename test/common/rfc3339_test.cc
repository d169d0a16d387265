#include <catch2/catch.hpp>

#include "common/rfc3339.h"

namespace troupe {
namespace {

using std::chrono::microseconds;
using std::chrono::milliseconds;

// 2026-11-23T02:01:36Z is 1795399296 s after the epoch.
const Time kAt = Clock::from_time_t(1795399296);

TEST_CASE("times are written as metav1.Time and metav1.MicroTime write them", "[common][rfc3339]") {
  const Time t = kAt + microseconds(123456);
  CHECK(formatRfc3339(t) == "2026-11-23T02:01:36Z");
  CHECK(formatRfc3339(t, 6) == "2026-11-23T02:01:36.123456Z");
  CHECK(formatRfc3339(t, 3) == "2026-11-23T02:01:36.123Z");  // a log line's
  // 2025-01-01T00:00:00Z, a Lease's renewTime 2.500001 s later.
  const Time y2025 = Time{} + std::chrono::hours(24 * 20089);
  CHECK(formatRfc3339(y2025, 6) == "2025-01-01T00:00:00.000000Z");
  CHECK(formatRfc3339(y2025 + microseconds(2'500'001), 6) == "2025-01-01T00:00:02.500001Z");
}

TEST_CASE("RFC 3339 times are read with their fraction and zone", "[common][rfc3339]") {
  struct Case {
    std::string name;
    std::string text;
    Time want;
  };
  const std::vector<Case> cases = {
      {"UTC", "2026-11-23T02:01:36Z", kAt},
      {"microseconds", "2026-11-23T02:01:36.123456Z", kAt + microseconds(123456)},
      {"a short fraction", "2026-11-23T02:01:36.5Z", kAt + milliseconds(500)},
      {"nanoseconds", "2026-11-23T02:01:36.000000001Z", kAt + std::chrono::nanoseconds(1)},
      {"lower-case t and z", "2026-11-23t02:01:36z", kAt},
      {"a space for the T", "2026-11-23 02:01:36Z", kAt},
      // 03:31:36 at +01:30 is 02:01:36 UTC; 21:01:36 at -05:00 also.
      {"a positive offset", "2026-11-23T03:31:36+01:30", kAt},
      {"a negative offset", "2026-11-22T21:01:36-05:00", kAt},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      auto t = parseRfc3339(tc.text);
      REQUIRE(t.has_value());
      CHECK(*t == tc.want);
    }
  }
}

TEST_CASE("anything else is not a time", "[common][rfc3339]") {
  for (const char* bad :
       {"", "2026-11-23", "2026-11-23T02:01:36", "2026-13-23T02:01:36Z", "2026-00-23T02:01:36Z",
        "2026-11-32T02:01:36Z", "2026-11-23T24:01:36Z", "2026-11-23T02:01:36.Z",
        "2026-11-23T02:01:36.1234567890Z", "2026-11-23T02:01:36Zjunk", "2026-11-23T02:01:36+0100",
        "2026-11-23X02:01:36Z", "yesterday"}) {
    DYNAMIC_SECTION("'" << bad << "'") { CHECK_FALSE(parseRfc3339(bad).has_value()); }
  }
}

}  // namespace
}  // namespace troupe
