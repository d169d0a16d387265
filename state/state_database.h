#pragma once

#include <filesystem>
#include <memory>

#include "common/result.h"
#include "common/sqlite_connection.h"

// The operator's own database: what the Kubernetes API does not hold. One SQLite file,
// DIR/operator.db, written by one process (the leading replica) through one connection.
// docs/state-store.md describes the tables and what happens to them after a crash.
namespace troupe::state {

class StateDatabase {
 public:
  // Opens or creates DIR/operator.db (creating DIR), in WAL mode with synchronous=FULL so
  // that a committed journal row survives a SIGKILL or a power loss, held exclusively (no
  // shared-memory file), and brings the schema to the current version. Opening an
  // up-to-date store writes nothing, so it opens on a full or read-only disk; the writes
  // that then fail are InsufficientStorage errors naming the cause.
  static Result<std::unique_ptr<StateDatabase>> open(const std::filesystem::path& dir);

  SqliteConnection& connection() { return connection_; }
  const std::filesystem::path& path() const { return path_; }

  // Runs `body` in one transaction: committed when it returns ok, rolled back otherwise.
  template <typename Body>
  Status transaction(Body&& body) {
    if (auto s = connection_.exec("BEGIN IMMEDIATE"); !s) return s;
    Status result = body();
    if (!result) {
      (void)connection_.exec("ROLLBACK");
      return result;
    }
    return connection_.exec("COMMIT");
  }

  static constexpr int kSchemaVersion = 1;

 private:
  StateDatabase(SqliteConnection connection, std::filesystem::path path)
      : connection_(std::move(connection)), path_(std::move(path)) {}

  SqliteConnection connection_;
  std::filesystem::path path_;
};

}  // namespace troupe::state
