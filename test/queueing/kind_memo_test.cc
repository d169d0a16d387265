// KindMemo (queueing/placement_memo.h): placement outcomes by kind id, cleared all at once
// by a generation step. A cleared entry must never be seen again, whatever its kind.
#include <catch2/catch.hpp>

#include <map>
#include <random>

#include "queueing/placement_memo.h"

namespace troupe::queueing {
namespace {

TEST_CASE("a kind memo finds what was added until it is cleared", "[queueing][memo]") {
  KindMemo memo;
  CHECK(memo.find(0) == nullptr);
  CHECK(memo.find(7) == nullptr);  // beyond every kind seen: absent, not out of bounds

  auto [e, added] = memo.tryEmplace(3);
  REQUIRE(added);
  CHECK(e->min_failing == 0);  // value-initialised
  e->min_failing = 5;
  auto [again, added_again] = memo.tryEmplace(3);
  CHECK_FALSE(added_again);
  CHECK(again->min_failing == 5);
  REQUIRE(memo.find(3) != nullptr);
  CHECK(memo.find(3)->min_failing == 5);
  CHECK(memo.find(2) == nullptr);  // a lower kind the vector holds but nobody added

  memo.clear();
  CHECK(memo.find(3) == nullptr);
  auto [fresh, added_fresh] = memo.tryEmplace(3);
  CHECK(added_fresh);
  CHECK(fresh->min_failing == 0);  // nothing of the cleared entry survives
}

TEST_CASE("a kind memo visits each live entry once, in the order added", "[queueing][memo]") {
  KindMemo memo;
  for (KindId k : {4, 1, 9}) memo.tryEmplace(k).first->min_failing = k * 10;
  memo.tryEmplace(1);  // present already: not listed twice
  std::vector<std::pair<KindId, std::int64_t>> seen;
  memo.forEach([&](KindId k, MemoEntry& e) { seen.emplace_back(k, e.min_failing); });
  CHECK(seen == std::vector<std::pair<KindId, std::int64_t>>{{4, 40}, {1, 10}, {9, 90}});
  memo.clear();
  seen.clear();
  memo.forEach([&](KindId k, MemoEntry& e) { seen.emplace_back(k, e.min_failing); });
  CHECK(seen.empty());
}

TEST_CASE("a kind memo agrees with a map under random adds and clears", "[queueing][memo]") {
  std::mt19937 rng(20261123);
  KindMemo memo;
  std::map<KindId, std::int64_t> model;
  for (int step = 0; step < 200000; ++step) {
    const KindId k = static_cast<KindId>(rng() % 64);
    switch (rng() % 10) {
      case 0:
        memo.clear();
        model.clear();
        break;
      case 1:
      case 2:
      case 3: {
        const auto value = static_cast<std::int64_t>(rng() % 1000);
        memo.tryEmplace(k).first->min_failing = value;
        model[k] = value;
        break;
      }
      default: {
        const MemoEntry* e = memo.find(k);
        const auto it = model.find(k);
        REQUIRE((e != nullptr) == (it != model.end()));
        if (e != nullptr) REQUIRE(e->min_failing == it->second);
      }
    }
  }
}

}  // namespace
}  // namespace troupe::queueing
