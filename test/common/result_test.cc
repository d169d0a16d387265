#include <catch2/catch.hpp>

#include "common/result.h"

namespace troupe {
namespace {

Result<int> half(int n) {
  if (n % 2 != 0)
    return makeError(ErrorCode::Invalid, "n", fmt::format("Invalid value: {}: must be even", n));
  return n / 2;
}

TEST_CASE("a Result carries either the value or the error that explains it", "[common][result]") {
  auto even = half(8);
  REQUIRE(even.ok());
  CHECK(*even == 4);

  auto odd = half(7);
  REQUIRE_FALSE(odd.ok());
  CHECK(odd.error().code == ErrorCode::Invalid);
  CHECK(odd.error().describe() == "n: Invalid value: 7: must be even");
}

TEST_CASE("Result<void> is success unless it holds an error", "[common][result]") {
  Status fine;
  CHECK(fine.ok());
  Status bad = makeError(ErrorCode::NotFound, "", "queue \"x\" not found");
  CHECK_FALSE(bad.ok());
  CHECK(std::string(errorCodeName(bad.error().code)) == "NotFound");
}

}  // namespace
}  // namespace troupe
