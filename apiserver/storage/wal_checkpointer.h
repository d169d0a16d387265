#pragma once

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <memory>
#include <mutex>
#include <thread>

#include "common/result.h"
#include "common/sqlite_connection.h"

// Moves WAL checkpoints off the write path. SQLite's automatic checkpoint runs inside the
// commit that crosses the threshold, so that one caller waits for pages to be copied into
// the database file and for its fsync. Here the writer's connection only reports the WAL
// size (a WAL hook), and a thread with its own connection runs PASSIVE checkpoints, which
// in WAL mode proceed while the writer keeps committing.
namespace troupe::apiserver {

class WalCheckpointer {
 public:
  // Turns off automatic checkpoints on `writer` and hooks its commits. `writer` must
  // outlive the checkpointer, and no commit may run on it while the checkpointer is
  // being destroyed.
  static Result<std::unique_ptr<WalCheckpointer>> start(SqliteConnection& writer,
                                                        const std::filesystem::path& file,
                                                        int checkpoint_pages);
  ~WalCheckpointer();
  WalCheckpointer(const WalCheckpointer&) = delete;
  WalCheckpointer& operator=(const WalCheckpointer&) = delete;

  std::uint64_t checkpoints() const { return checkpoints_.load(); }

 private:
  WalCheckpointer(SqliteConnection& writer, SqliteConnection own, int checkpoint_pages);
  static int onCommit(void* self, sqlite3* db, const char* schema, int wal_pages);
  void loop();

  SqliteConnection& writer_;
  SqliteConnection connection_;
  const int checkpoint_pages_;
  std::atomic<std::uint64_t> checkpoints_{0};
  std::mutex mu_;
  std::condition_variable cv_;
  bool wanted_ = false;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace troupe::apiserver
