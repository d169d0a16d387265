#include <catch2/catch.hpp>

#include "queueing/walk_answers.h"

namespace troupe::queueing {
namespace {

WalkAnswer because(PendingReason reason, std::int64_t pods = 0, std::size_t way = 0) {
  WalkAnswer a;
  a.why.reason = reason;
  a.why.domain_pods = pods;
  a.way = way;
  return a;
}

TEST_CASE("walk answers are kept by ask, replaced, forgotten on clear and bounded") {
  WalkAnswers answers;
  CHECK(answers.empty());
  const AskKey a{3, 4, 4, 0}, b{3, 2, 2, 0}, c{3, 4, 4, 1};
  CHECK(answers.find(a) == nullptr);

  answers.put(a, because(PendingReason::NoPlacement, 7));
  answers.put(b, because(PendingReason::OverFairShare));
  REQUIRE(answers.find(a) != nullptr);
  CHECK(answers.find(a)->why.domain_pods == 7);
  CHECK(answers.find(b)->why.reason == PendingReason::OverFairShare);
  CHECK(answers.find(c) == nullptr);  // another priority is another ask

  // The way a gang with alternatives waits on is kept with the answer.
  answers.put(a, because(PendingReason::WaitingForReclaim, 0, 1));
  CHECK(answers.find(a)->why.reason == PendingReason::WaitingForReclaim);
  CHECK(answers.find(a)->way == 1);

  answers.clear();
  CHECK(answers.empty());
  CHECK(answers.find(a) == nullptr);
  CHECK(answers.find(b) == nullptr);

  // More asks than it keeps: the first kMaxAnswers are found, the rest are not kept, and
  // every lookup still ends.
  const auto n = static_cast<std::int32_t>(WalkAnswers::kMaxAnswers);
  for (std::int32_t i = 0; i < n + 40; ++i)
    answers.put(AskKey{i % 7, i, i, 0}, because(PendingReason::NoPlacement, i));
  for (std::int32_t i = 0; i < n + 40; ++i) {
    const WalkAnswer* w = answers.find(AskKey{i % 7, i, i, 0});
    INFO("ask " << i);
    if (i < n) {
      REQUIRE(w != nullptr);
      CHECK(w->why.domain_pods == i);
    } else {
      CHECK(w == nullptr);
    }
  }
  answers.clear();
  answers.put(a, because(PendingReason::NoPlacement, 1));
  CHECK(answers.find(a)->why.domain_pods == 1);
}

}  // namespace
}  // namespace troupe::queueing
