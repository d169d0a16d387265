// The store on a disk that runs out of room, made without root: a file size limit
// (RLIMIT_FSIZE) stops SQLite's writes as a full filesystem would. Writes fail with
// InsufficientStorage naming the cause, reads go on, the store says it is not writable,
// and writes succeed again once there is room. The full filesystem itself, and a restart on
// it, are tested with the real `troupe serve` (test/apiserver/full_disk_test.cc).
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/resource.h>

#include <filesystem>

#include "test/storage/store_fixture.h"

namespace troupe::apiserver::testing {
namespace {

std::uintmax_t bytesIn(const std::filesystem::path& dir) {
  std::uintmax_t total = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.is_regular_file()) total += entry.file_size();
  return total;
}

TEST_CASE("a write on a full disk fails with the cause, and reads go on", "[storage][faults]") {
  TempDir dir;
  auto store = openStore(testOptions(dir.path()));
  REQUIRE(store->create(podKey("a", "before"), pod("a", "before")).ok());
  REQUIRE(store->writable().ok());

  rlimit saved{};
  getrlimit(RLIMIT_FSIZE, &saved);
  auto previous = signal(SIGXFSZ, SIG_IGN);
  rlimit full = saved;
  // No file may grow past what the largest one holds now: the next WAL frame cannot land.
  std::uintmax_t largest = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path()))
    if (entry.is_regular_file()) largest = std::max(largest, entry.file_size());
  full.rlim_cur = largest;
  REQUIRE(setrlimit(RLIMIT_FSIZE, &full) == 0);

  // A value larger than any page: it must go to the WAL, which may not grow.
  nlohmann::json big = pod("a", "after");
  big["spec"]["blob"] = std::string(64 * 1024, 'x');
  auto failed = store->create(podKey("a", "after"), big);
  auto read = store->get(podKey("a", "before"));
  auto writable = store->writable();

  setrlimit(RLIMIT_FSIZE, &saved);
  signal(SIGXFSZ, previous);

  REQUIRE_FALSE(failed.ok());
  CHECK(failed.error().code == ErrorCode::InsufficientStorage);
  CHECK_THAT(failed.error().message, Catch::Matchers::Contains("sqlite:"));
  CHECK(read.ok());
  REQUIRE_FALSE(writable.ok());
  CHECK(writable.error().code == ErrorCode::InsufficientStorage);
  CHECK_FALSE(store->get(podKey("a", "after")).ok());  // nothing half written

  // Room again: the next write lands and the store is writable.
  REQUIRE(store->create(podKey("a", "after"), big).ok());
  CHECK(store->writable().ok());
  CHECK(bytesIn(dir.path()) > largest);
}

}  // namespace
}  // namespace troupe::apiserver::testing
