#include "simulator/owed_guarantee.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

namespace troupe::simulator {
namespace {

// The largest subset sum <= limit by trying every subset: the reference for small cases.
int64_t bruteForce(const std::vector<int64_t>& gangs, int64_t limit) {
  int64_t best = 0;
  for (uint32_t mask = 0; mask < (1u << gangs.size()); ++mask) {
    int64_t sum = 0;
    for (size_t i = 0; i < gangs.size(); ++i)
      if (mask & (1u << i)) sum += gangs[i];
    if (sum <= limit) best = std::max(best, sum);
  }
  return best;
}

GangSizes sizesOf(const std::vector<int64_t>& gangs) {
  GangSizes sizes;
  for (int64_t g : gangs) ++sizes[g];
  return sizes;
}

TEST_CASE("a queue is owed the most of its guarantee its whole gangs can fill",
          "[simulator][shares]") {
  struct Case {
    std::string name;
    std::vector<int64_t> gangs;
    int64_t guaranteed;
    int64_t want_owed;
  };
  std::vector<Case> cases = {
      {"demand below the guarantee is owed whole", {1, 2, 4}, 51, 7},
      {"two 32-GPU gangs fit a 51-GPU guarantee only one at a time", {32, 32}, 51, 32},
      {"small gangs fill what a big one leaves", {32, 32, 1, 1, 1, 8}, 51, 43},
      {"a gang larger than the guarantee is owed nothing", {64}, 51, 0},
      {"exactly full", {16, 16, 16, 2, 1}, 51, 51},
      {"no guarantee, nothing owed", {1, 2}, 0, 0},
      {"no gangs, nothing owed", {}, 8, 0},
      {"past 64 bits of guarantee", {100, 100, 30, 30, 30}, 190, 190},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      CHECK(owedGuarantee(sizesOf(tc.gangs), tc.guaranteed) == tc.want_owed);
    }
  }
}

TEST_CASE("the owed guarantee agrees with trying every subset", "[simulator][shares]") {
  const int64_t sizes[] = {1, 2, 3, 4, 8, 12, 16, 24, 32, 63, 64, 65};
  uint64_t x = 20260501;
  auto next = [&x](uint64_t n) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return (x >> 33) % n;
  };
  for (int round = 0; round < 300; ++round) {
    std::vector<int64_t> gangs;
    const auto n = next(14);
    for (uint64_t i = 0; i < n; ++i) gangs.push_back(sizes[next(12)]);
    const auto guaranteed = static_cast<int64_t>(next(200));
    INFO("round " << round << ", guaranteed " << guaranteed);
    CHECK(owedGuarantee(sizesOf(gangs), guaranteed) == bruteForce(gangs, guaranteed));
  }
}

}  // namespace
}  // namespace troupe::simulator
