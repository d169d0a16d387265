#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "controllers/pending_status_schedule.h"

using namespace troupe::controllers;

namespace {

std::vector<std::string> gangsOf(const std::vector<PendingStatusSchedule::Due>& due) {
  std::vector<std::string> out;
  for (const auto& d : due) out.push_back(d.gang);
  return out;
}

}  // namespace

TEST_CASE("a cycle compares the gangs the engine named, then those due, within the budget",
          "[controllers][pending-status]") {
  PendingStatusSchedule s(2);
  // First cycle at t=0: the engine names all three; they are written then and come back at 10.
  auto first = s.take({"ml/a", "ml/b", "ml/c"}, 0);
  CHECK(gangsOf(first) == std::vector<std::string>{"ml/a", "ml/b", "ml/c"});
  CHECK_FALSE(first[0].written_at.has_value());
  for (const auto& d : first) s.checked(d.gang, 0, 10);
  CHECK(s.size() == 3);

  // Before they are due only what the engine names is compared, with its last write time.
  auto named = s.take({"ml/b"}, 5);
  REQUIRE(gangsOf(named) == std::vector<std::string>{"ml/b"});
  CHECK(named[0].written_at == 0);
  s.checked("ml/b", 5, 15);  // written again at 5

  // At 10, a and c are due; the budget of 2 covers both, b (due at 15) waits.
  CHECK(gangsOf(s.take({}, 10)) == std::vector<std::string>{"ml/a", "ml/c"});
  // Not put back: no longer waiting, so forgotten.
  CHECK(s.size() == 1);
  CHECK(s.take({}, 14).empty());
  CHECK(gangsOf(s.take({}, 15)) == std::vector<std::string>{"ml/b"});
  CHECK(s.size() == 0);
}

TEST_CASE("more gangs due than the budget are compared over the next cycles, earliest first",
          "[controllers][pending-status]") {
  PendingStatusSchedule s(2);
  s.checked("ml/d", std::nullopt, 3);
  s.checked("ml/c", std::nullopt, 1);
  s.checked("ml/b", std::nullopt, 1);
  s.checked("ml/a", std::nullopt, 2);
  // Due by time, then name: b and c (both at 1), then a (2), then d (3).
  CHECK(gangsOf(s.take({}, 10)) == std::vector<std::string>{"ml/b", "ml/c"});
  // A gang the engine names comes first, once, even when it is also due.
  CHECK(gangsOf(s.take({"ml/d"}, 10)) == std::vector<std::string>{"ml/d", "ml/a"});
  CHECK(s.size() == 0);
}

TEST_CASE("a gang compared again replaces its place on the schedule",
          "[controllers][pending-status]") {
  PendingStatusSchedule s(10);
  s.checked("ml/a", 0, 10);
  s.checked("ml/a", 4, 14);  // compared again before it was due
  CHECK(s.size() == 1);
  CHECK(s.take({}, 12).empty());
  auto due = s.take({}, 14);
  REQUIRE(due.size() == 1);
  CHECK(due[0].written_at == 4);
  s.checked("ml/a", 4, 24);
  s.clear();
  CHECK(s.size() == 0);
  CHECK(s.take({}, 100).empty());
}
