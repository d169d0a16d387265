#include <catch2/catch.hpp>

#include "state/job_accounting.h"
#include "test/state/state_fixture.h"

using namespace troupe::state;
using troupe::state::testing::openDatabase;
using troupe::state::testing::TempDir;

TEST_CASE("a job preempted once and resumed is charged for both runs", "[state][accounting]") {
  TempDir dir;
  {
    auto db = openDatabase(dir.path());
    JobAccounting accounting(*db);
    REQUIRE(accounting.submitted("ml/a", "team-a", 1000).ok());
    REQUIRE(accounting.started("ml/a", 1030, 8).ok());
    REQUIRE(accounting.stopped("ml/a", 1130, StopReason::Preempted).ok());
  }
  // Reopen between the runs: nothing is lost.
  auto db = openDatabase(dir.path());
  JobAccounting accounting(*db);
  // Resubmission after the preemption keeps the first submit time.
  REQUIRE(accounting.submitted("ml/a", "team-a", 1130).ok());
  REQUIRE(accounting.started("ml/a", 1200, 8).ok());
  auto account = accounting.find("ml/a");
  REQUIRE(account.ok());
  REQUIRE(account->has_value());
  const JobAccount& a = **account;
  CHECK(a.submit_time == 1000);
  // wait: first admission 1030 - submit 1000 = 30; the second wait is not a first wait.
  CHECK(a.wait_seconds == 30);
  CHECK(a.admissions == 2);
  CHECK(a.preemptions == 1);
  // closed run: (1130 - 1030) * 8 = 800; open run at 1250: (1250 - 1200) * 8 = 400.
  CHECK(a.gpu_seconds == 800);
  CHECK(a.gpuSecondsAt(1250) == 1200);
}

TEST_CASE("an elastic job is charged at each size it held", "[state][accounting]") {
  TempDir dir;
  auto db = openDatabase(dir.path());
  JobAccounting accounting(*db);
  REQUIRE(accounting.submitted("ml/e", "team-a", 0).ok());
  REQUIRE(accounting.started("ml/e", 10, 2).ok());
  REQUIRE(accounting.resized("ml/e", 20, 4).ok());
  REQUIRE(accounting.stopped("ml/e", 30, StopReason::Finished).ok());
  // 2 GPUs for 10 s + 4 GPUs for 10 s = 60.
  auto a = **accounting.find("ml/e");
  CHECK(a.gpu_seconds == 60);
  CHECK_FALSE(a.running_since.has_value());
  CHECK(a.gpuSecondsAt(1000) == 60);
}

TEST_CASE("repeating a start or a stop after a crash changes nothing", "[state][accounting]") {
  TempDir dir;
  auto db = openDatabase(dir.path());
  JobAccounting accounting(*db);
  REQUIRE(accounting.submitted("ml/r", "team-a", 0).ok());
  REQUIRE(accounting.started("ml/r", 5, 4).ok());
  REQUIRE(accounting.started("ml/r", 9, 4).ok());
  REQUIRE(accounting.stopped("ml/r", 15, StopReason::Restarted).ok());
  REQUIRE(accounting.stopped("ml/r", 20, StopReason::Finished).ok());
  auto a = **accounting.find("ml/r");
  // One admission, charged from the first start: (15 - 5) * 4 = 40.
  CHECK(a.admissions == 1);
  CHECK(a.gpu_seconds == 40);
  CHECK(a.restarts == 1);
  CHECK(a.preemptions == 0);
}

TEST_CASE("accounting for an unknown job is refused, listing is sorted", "[state][accounting]") {
  TempDir dir;
  auto db = openDatabase(dir.path());
  JobAccounting accounting(*db);
  auto started = accounting.started("ml/ghost", 5, 4);
  REQUIRE_FALSE(started.ok());
  CHECK(started.error().code == troupe::ErrorCode::NotFound);
  REQUIRE(accounting.submitted("ml/b", "q", 2).ok());
  REQUIRE(accounting.submitted("ml/a", "q", 1).ok());
  auto all = accounting.all();
  REQUIRE(all->size() == 2);
  CHECK(all->at(0).job == "ml/a");
  REQUIRE(accounting.forget("ml/a").ok());
  CHECK(accounting.all()->size() == 1);
}
