#include "state/state_database.h"

#include <fmt/format.h>

#include <system_error>

namespace troupe::state {
namespace {

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS admission_journal (
  gang        TEXT PRIMARY KEY,
  queue       TEXT NOT NULL,
  cycle       INTEGER NOT NULL,
  written_at  INTEGER NOT NULL,
  placements  TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS queue_usage (
  queue       TEXT PRIMARY KEY,
  usage       TEXT NOT NULL,
  updated_at  INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS job_accounting (
  job                 TEXT PRIMARY KEY,
  queue               TEXT NOT NULL,
  submit_time         INTEGER NOT NULL,
  first_admit_time    INTEGER,
  running_since       INTEGER,
  running_gpus        INTEGER NOT NULL DEFAULT 0,
  gpu_seconds         INTEGER NOT NULL DEFAULT 0,
  wait_seconds        INTEGER NOT NULL DEFAULT 0,
  admissions          INTEGER NOT NULL DEFAULT 0,
  preemptions         INTEGER NOT NULL DEFAULT 0,
  restarts            INTEGER NOT NULL DEFAULT 0
);
)sql";

}  // namespace

Result<std::unique_ptr<StateDatabase>> StateDatabase::open(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return makeError(ErrorCode::Internal, "--state-dir",
                     fmt::format("cannot create {}: {}", dir.string(), ec.message()));
  }
  auto path = dir / "operator.db";
  auto connection = SqliteConnection::open(path, SqliteConnection::Mode::ReadWrite);
  if (!connection) return connection.error();
  // One connection of one process uses this database, so it holds it exclusively, and
  // SQLite keeps the WAL index in the heap rather than in a shared-memory file mapped from
  // the data directory: a page of that mapping the filesystem cannot back (a full disk)
  // would end the process with SIGBUS on its first read. Another process opening the same
  // directory meanwhile gets "database is locked".
  if (auto s = connection->exec("PRAGMA locking_mode=EXCLUSIVE"); !s) return s.error();
  auto mode = connection->queryText("PRAGMA journal_mode=WAL");
  if (!mode) return mode.error();
  if (auto s = connection->exec("PRAGMA synchronous=FULL"); !s) return s.error();
  auto version = connection->queryText("PRAGMA user_version");
  if (!version) return version.error();
  int found = std::stoi(*version);
  if (found > kSchemaVersion) {
    return makeError(ErrorCode::Internal, "--state-dir",
                     fmt::format("{} has schema version {}, newer than this operator's {}",
                                 path.string(), found, kSchemaVersion));
  }
  // Written only when something changes: a restart on a full or read-only disk opens an
  // up-to-date store without writing, and can go on with what it reads.
  if (found < kSchemaVersion) {
    if (auto s = connection->exec(kSchema); !s) return s.error();
    if (auto s = connection->exec(fmt::format("PRAGMA user_version={}", kSchemaVersion)); !s)
      return s.error();
  }
  return std::unique_ptr<StateDatabase>(new StateDatabase(std::move(*connection), path));
}

}  // namespace troupe::state
