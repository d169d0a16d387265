#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "common/galloping_search.h"

namespace troupe {
namespace {

TEST_CASE("the galloping search finds what a binary search finds, in few steps near `from`",
          "[common][search]") {
  std::mt19937 random(7);
  for (int round = 0; round < 2000; ++round) {
    const std::size_t n = random() % 300;
    std::vector<int> values(n);
    for (auto& v : values) v = static_cast<int>(random() % 100);
    std::sort(values.begin(), values.end());
    const int key = static_cast<int>(random() % 110) - 5;
    const auto expected = static_cast<std::size_t>(
        std::lower_bound(values.begin(), values.end(), key) - values.begin());
    // Any `from` at or before the answer.
    const std::size_t from = expected == 0 ? 0 : random() % (expected + 1);
    int calls = 0;
    const auto found = gallopingPartitionPoint(from, n, [&](std::size_t i) {
      ++calls;
      REQUIRE(i >= from);
      REQUIRE(i < n);
      return values[i] < key;
    });
    INFO("n " << n << " from " << from << " key " << key);
    CHECK(found == expected);
    CHECK(calls <= 2 * std::log2(static_cast<double>(found - from + 1)) + 2);
  }
}

TEST_CASE("the galloping search at the ends of its range", "[common][search]") {
  auto none = [](std::size_t) { return false; };
  auto all = [](std::size_t) { return true; };
  CHECK(gallopingPartitionPoint(0, 0, all) == 0);
  CHECK(gallopingPartitionPoint(0, 5, none) == 0);
  CHECK(gallopingPartitionPoint(0, 5, all) == 5);
  CHECK(gallopingPartitionPoint(5, 5, all) == 5);
  CHECK(gallopingPartitionPoint(3, 5, none) == 3);
  // The key at `from`: one call; one step on: three; over a list of a thousand.
  int calls = 0;
  auto counted = [&](std::size_t answer) {
    return [&calls, answer](std::size_t i) {
      ++calls;
      return i < answer;
    };
  };
  CHECK(gallopingPartitionPoint(10, 1000, counted(10)) == 10);
  CHECK(calls == 1);
  calls = 0;
  CHECK(gallopingPartitionPoint(10, 1000, counted(11)) == 11);
  CHECK(calls == 3);
}

}  // namespace
}  // namespace troupe
