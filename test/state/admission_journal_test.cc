#include <catch2/catch.hpp>

#include "state/admission_journal.h"
#include "test/state/state_fixture.h"

using troupe::ErrorCode;
using namespace troupe::state;
using troupe::state::testing::openDatabase;
using troupe::state::testing::TempDir;

namespace {

// Two pods of 4 GPUs, on GPU type `gpu_type` ("" for none).
AdmissionRecord gangOfTwo(std::string gang, const std::string& gpu_type = "") {
  return AdmissionRecord{gang,
                         "team-a",
                         7,
                         1700000000,
                         {{"ml", gang + "-0", "node-1", {0, 1, 2, 3}, gpu_type},
                          {"ml", gang + "-1", "node-2", {4, 5, 6, 7}, gpu_type}}};
}

}  // namespace

TEST_CASE("an admission written before binding is read back after the database reopens",
          "[state][journal]") {
  TempDir dir;
  {
    auto db = openDatabase(dir.path());
    AdmissionJournal journal(*db);
    REQUIRE(journal.begin(gangOfTwo("ml/train-b")).ok());
    // Admitted on H100s: the pods are told so when the bindings are finished after a crash.
    REQUIRE(journal.begin(gangOfTwo("ml/train-a", "h100")).ok());
  }
  auto db = openDatabase(dir.path());
  AdmissionJournal journal(*db);
  auto open = journal.open();
  REQUIRE(open.ok());
  // Sorted by gang, whatever the order of writing.
  REQUIRE(open->size() == 2);
  CHECK(open->at(0) == gangOfTwo("ml/train-a", "h100"));
  CHECK(open->at(1) == gangOfTwo("ml/train-b"));
}

TEST_CASE("a completed admission leaves the journal and completing twice is harmless",
          "[state][journal]") {
  TempDir dir;
  auto db = openDatabase(dir.path());
  AdmissionJournal journal(*db);
  REQUIRE(journal.begin(gangOfTwo("ml/a")).ok());
  REQUIRE(journal.complete("ml/a").ok());
  REQUIRE(journal.complete("ml/a").ok());
  auto found = journal.find("ml/a");
  REQUIRE(found.ok());
  CHECK_FALSE(found->has_value());
  CHECK(journal.open()->empty());
}

TEST_CASE("a gang with an open admission cannot be admitted again", "[state][journal]") {
  TempDir dir;
  auto db = openDatabase(dir.path());
  AdmissionJournal journal(*db);
  REQUIRE(journal.begin(gangOfTwo("ml/a")).ok());
  auto again = journal.begin(gangOfTwo("ml/a"));
  REQUIRE_FALSE(again.ok());
  CHECK(again.error().code == ErrorCode::AlreadyExists);
  CHECK_THAT(again.error().message, Catch::Contains("ml/a"));
}

TEST_CASE("a transaction that fails leaves no journal row behind", "[state][journal]") {
  TempDir dir;
  auto db = openDatabase(dir.path());
  AdmissionJournal journal(*db);
  auto result = db->transaction([&]() -> troupe::Status {
    if (auto s = journal.begin(gangOfTwo("ml/a")); !s) return s;
    return troupe::makeError(ErrorCode::Internal, "", "the caller gave up");
  });
  CHECK_FALSE(result.ok());
  CHECK(journal.open()->empty());
}

TEST_CASE("a database from a newer schema is refused with a clear error", "[state][database]") {
  TempDir dir;
  {
    auto db = openDatabase(dir.path());
    REQUIRE(db->connection().exec("PRAGMA user_version=99").ok());
  }
  auto reopened = StateDatabase::open(dir.path());
  REQUIRE_FALSE(reopened.ok());
  CHECK_THAT(reopened.error().message, Catch::Contains("schema version 99"));
}

TEST_CASE("the state database is created with its directory, in WAL mode", "[state][database]") {
  TempDir dir;
  auto db = openDatabase(dir.file("nested/state"));
  CHECK(std::filesystem::exists(dir.file("nested/state/operator.db")));
  CHECK(*db->connection().queryText("PRAGMA journal_mode") == "wal");
}
