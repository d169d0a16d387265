#include <catch2/catch.hpp>

#include <limits>
#include <nlohmann/json.hpp>

#include "api/quantity.h"

namespace troupe::api {
namespace {

struct ParseCase {
  std::string name;
  std::string input;
  int64_t want_milli = 0;
  std::string want_canonical;
};

TEST_CASE("quantities parse to exact milli-values the way Kubernetes reads them",
          "[api][quantity]") {
  std::vector<ParseCase> cases = {
      {"a plain integer is whole units", "8", 8000, "8"},
      {"milli-cpu stays in thousandths", "500m", 500, "500m"},
      {"a decimal fraction becomes milli", "1.5", 1500, "1500m"},
      {"a leading plus sign is allowed", "+2", 2000, "2"},
      {"a negative quantity keeps its sign", "-250m", -250, "-250m"},
      {"kilo is a thousand", "2k", 2000000, "2k"},
      {"binary gibibytes", "64Gi", 64LL * 1024 * 1024 * 1024 * 1000, "64Gi"},
      {"1024 mebibytes canonicalise to one gibibyte", "1024Mi", 1024LL * 1024 * 1024 * 1000, "1Gi"},
      {"a fractional binary amount prints in the next smaller suffix", "1.5Gi",
       1536LL * 1024 * 1024 * 1000, "1536Mi"},
      {"a binary amount under 1024 prints as decimal", "0.5Ki", 512000, "512"},
      {"decimal exponent", "1e3", 1000000, "1e3"},
      {"upper-case exponent with a sign", "15E-1", 1500, "1500e-3"},
      {"exponent of zero prints without exponent", "7e0", 7000, "7"},
      {"a thousand units canonicalise to kilo", "1000", 1000000, "1k"},
      {"mega", "3M", 3000000000LL, "3M"},
      {"peta fits: eight of them are 8e18 milli-units", "8P", 8000000000000000000LL, "8P"},
      {"a leading dot is a fraction", ".5", 500, "500m"},
      {"a trailing dot is allowed", "5.", 5000, "5"},
      {"zero is zero however written", "0Gi", 0, "0"},
      {"micro rounds up to one milli", "1u", 1, "1m"},
      {"nano rounds up to one milli", "1n", 1, "1m"},
      {"sub-milli fractions round away from zero", "1.0001", 1001, "1001m"},
      {"trailing zeros in the fraction do not change the value", "2.500", 2500, "2500m"},
      {"leading zeros do not change the value", "007", 7000, "7"},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      auto q = Quantity::parse(tc.input, "spec.resources[cpu].limit");
      REQUIRE(q.ok());
      CHECK(q->milliValue() == tc.want_milli);
      CHECK(q->toString() == tc.want_canonical);
    }
  }
}

struct BadCase {
  std::string name;
  std::string input;
  std::string want_message;
};

TEST_CASE("malformed or out-of-range quantities are errors naming the field", "[api][quantity]") {
  const std::string grammar =
      "quantities must match the regular expression "
      "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
  std::vector<BadCase> cases = {
      {"empty string", "", "Invalid value: \"\": " + grammar},
      {"letters only", "abc", "Invalid value: \"abc\": " + grammar},
      {"unknown suffix", "5Xi", "Invalid value: \"5Xi\": " + grammar},
      {"upper-case K is not kilo", "5K", "Invalid value: \"5K\": " + grammar},
      {"two dots", "1.2.3", "Invalid value: \"1.2.3\": " + grammar},
      {"a lone dot", ".", "Invalid value: \".\": " + grammar},
      {"a sign without digits", "-", "Invalid value: \"-\": " + grammar},
      {"exponent without digits", "1e", "Invalid value: \"1e\": " + grammar},
      {"space inside", "1 Gi", "Invalid value: \"1 Gi\": " + grammar},
      {"one exa is 1e21 milli-units, beyond int64", "1E",
       "Invalid value: \"1E\": quantity is out of range"},
      {"ten exa", "10E", "Invalid value: \"10E\": quantity is out of range"},
      {"huge exponent", "1e400", "Invalid value: \"1e400\": quantity is out of range"},
      {"just past the int64 edge", "9223372036854776",
       "Invalid value: \"9223372036854776\": quantity is out of range"},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      auto q = Quantity::parse(tc.input, "spec.resources[cpu].limit");
      REQUIRE_FALSE(q.ok());
      CHECK(q.error().code == ErrorCode::Invalid);
      CHECK(q.error().field_path == "spec.resources[cpu].limit");
      CHECK(q.error().message == tc.want_message);
    }
  }
}

TEST_CASE("the largest milli-value that fits in int64 parses exactly", "[api][quantity]") {
  // int64 max = 9223372036854775807 milli = 9223372036854775.807 units
  auto q = Quantity::parse("9223372036854775807m");
  REQUIRE(q.ok());
  CHECK(q->milliValue() == std::numeric_limits<int64_t>::max());
  CHECK(q->value() == 9223372036854776);  // rounded up
}

TEST_CASE("quantity arithmetic is exact and reports overflow instead of wrapping",
          "[api][quantity]") {
  auto a = Quantity::parse("1500m");
  auto b = Quantity::parse("2");
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  auto sum = a->plus(*b);
  REQUIRE(sum.ok());
  CHECK(sum->milliValue() == 3500);  // 1.5 + 2 = 3.5
  auto diff = a->minus(*b);
  REQUIRE(diff.ok());
  CHECK(diff->milliValue() == -500);
  auto scaled = b->times(4);
  REQUIRE(scaled.ok());
  CHECK(scaled->toString() == "8");

  auto big = Quantity::fromMilli(std::numeric_limits<int64_t>::max());
  auto overflow = big.plus(Quantity::fromMilli(1), "status.allocated[cpu]");
  REQUIRE_FALSE(overflow.ok());
  CHECK(overflow.error().field_path == "status.allocated[cpu]");
  CHECK_FALSE(big.times(2).ok());
  CHECK_FALSE(Quantity::fromMilli(std::numeric_limits<int64_t>::min()).minus(big).ok());
  CHECK_FALSE(Quantity::fromUnits(std::numeric_limits<int64_t>::max() / 10).ok());
}

TEST_CASE("quantities order by value regardless of how they were written", "[api][quantity]") {
  auto gi = Quantity::parse("1Gi");
  auto mi = Quantity::parse("1025Mi");
  auto k = Quantity::parse("1073741824");
  REQUIRE((gi.ok() && mi.ok() && k.ok()));
  CHECK(*gi < *mi);
  CHECK(*gi == *k);
}

TEST_CASE("quantities decode from JSON strings and bare numbers", "[api][quantity]") {
  auto from_int = Quantity::fromJson(nlohmann::json(4), "spec.resources[cpu].guaranteed");
  REQUIRE(from_int.ok());
  CHECK(from_int->milliValue() == 4000);
  auto from_float = Quantity::fromJson(nlohmann::json(0.25));
  REQUIRE(from_float.ok());
  CHECK(from_float->milliValue() == 250);
  auto from_bool = Quantity::fromJson(nlohmann::json(true), "spec.resources[cpu].limit");
  REQUIRE_FALSE(from_bool.ok());
  CHECK(from_bool.error().field_path == "spec.resources[cpu].limit");
}

}  // namespace
}  // namespace troupe::api
