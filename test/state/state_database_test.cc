#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/resource.h>

#include <algorithm>
#include <filesystem>

#include "test/state/state_fixture.h"

namespace troupe::state::testing {
namespace {

TEST_CASE("the state database maps no shared-memory file from its directory",
          "[state][database][faults]") {
  // A -shm file is mapped into memory; a page of it the disk cannot back is a SIGBUS.
  TempDir dir;
  auto db = openDatabase(dir.path());
  REQUIRE(db->connection()
              .exec("INSERT INTO queue_usage (queue, usage, updated_at) VALUES ('q', '{}', 1)")
              .ok());
  CHECK(std::filesystem::exists(dir.file("operator.db-wal")));
  CHECK_FALSE(std::filesystem::exists(dir.file("operator.db-shm")));
}

TEST_CASE("an up-to-date state database opens on a full disk, and a write says why it failed",
          "[state][database][faults]") {
  TempDir dir;
  openDatabase(dir.path());  // created, then closed
  std::uintmax_t largest = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path()))
    largest = std::max(largest, entry.file_size());

  // No file may grow: as on a full disk (without root, a file size limit stands in for it).
  rlimit saved{};
  getrlimit(RLIMIT_FSIZE, &saved);
  auto previous = signal(SIGXFSZ, SIG_IGN);
  rlimit full = saved;
  full.rlim_cur = largest;
  REQUIRE(setrlimit(RLIMIT_FSIZE, &full) == 0);
  auto reopened = StateDatabase::open(dir.path());
  Status write;
  if (reopened) {
    write = (*reopened)->connection().exec(
        "INSERT INTO queue_usage (queue, usage, updated_at) VALUES ('q', '" +
        std::string(64 * 1024, 'x') + "', 1)");
  }
  setrlimit(RLIMIT_FSIZE, &saved);
  signal(SIGXFSZ, previous);

  REQUIRE(reopened.ok());
  REQUIRE_FALSE(write.ok());
  CHECK(write.error().code == ErrorCode::InsufficientStorage);
  CHECK_THAT(write.error().message, Catch::Contains("sqlite:"));
}

}  // namespace
}  // namespace troupe::state::testing
