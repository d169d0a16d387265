#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "apiserver/storage/object_store.h"
#include "apiserver/storage/watch_hub.h"

// The standalone server's ObjectStore: one SQLite database file in WAL mode, in the
// spirit of k3s's kine. docs/storage.md has the schema and the promises.
//
// Writes: callers queue their write and wait; one writer thread takes every queued
// write, applies them in queue order inside one transaction (each write's own checks,
// AlreadyExists / NotFound / Conflict, are evaluated against the state the earlier
// writes of the batch left), commits with an fsync (synchronous=FULL), then wakes each
// caller with its own result and hands the events to the WatchHub. A failed commit
// fails every write of the batch; no write is ever half applied.
//
// Reads: a pool of separate read connections. In WAL mode a reader sees the last
// committed transaction and never waits for the writer.
//
// History: every write appends a row to `log`. Compaction removes the rows that no
// read at or after the compacted revision can need, and records that revision.
namespace troupe::apiserver {

struct CompactionPolicy {
  // A revision is compacted once it is more than `keep_revisions` behind the current
  // one AND older than `keep_for`. 0 disables that bound; both 0 disables automatic
  // compaction (compact() still works).
  Revision keep_revisions = 100000;
  std::chrono::milliseconds keep_for = std::chrono::minutes(5);
  // How often the writer considers compacting, and the most revisions one compaction
  // transaction covers (so writes interleave with a long compaction).
  std::chrono::milliseconds interval = std::chrono::seconds(10);
  Revision max_revisions_per_step = 10000;
};

struct SqliteObjectStoreOptions {
  // The database is `data_dir / "troupe.db"`; the directory is created if missing.
  std::filesystem::path data_dir;
  CompactionPolicy compaction;
  WatchHubOptions watch;
  // The most writes one transaction takes from the queue.
  std::size_t max_batch = 2048;
  // The most read connections open at once; more concurrent readers wait for one.
  std::size_t max_readers = 8;
  // Called on the writer thread after each commit that wrote, with its writes and the time
  // its transaction and fsync took (for metrics); must return quickly.
  std::function<void(std::size_t writes, std::chrono::nanoseconds took)> on_commit;
};

// Counters since open, for benchmarks and metrics.
struct WriteStats {
  std::uint64_t transactions = 0;  // committed write transactions (group commits)
  std::uint64_t writes = 0;        // writes they applied
};

class SqliteObjectStore final : public ObjectStore {
 public:
  static constexpr const char* kDatabaseFile = "troupe.db";

  static Result<std::unique_ptr<SqliteObjectStore>> open(SqliteObjectStoreOptions options);
  ~SqliteObjectStore() override;

  Result<StoredObject> create(const ObjectKey& key, nlohmann::json object) override;
  Result<StoredObject> update(const ObjectKey& key, nlohmann::json object,
                              std::optional<Revision> expected) override;
  Result<StoredObject> remove(const ObjectKey& key, std::optional<Revision> expected) override;
  Result<StoredObject> get(const ObjectKey& key) override;
  Result<ListResult> list(const ListOptions& options) override;
  Result<std::unique_ptr<Watch>> watch(WatchOptions options) override;
  Revision currentRevision() const override;
  Revision compactedRevision() const override;
  // Not writable while the data directory's filesystem is read-only or has less than
  // kMinFreeBytes free, or since a write failed for lack of space until one succeeds.
  Status writable() const override;
  static constexpr std::uint64_t kMinFreeBytes = 1 << 20;

  // Compacts history up to `revision` (at most the current revision) and waits until
  // that is durable. Lists and watches older than it then get ErrorCode::Gone.
  Status compact(Revision revision);

  // Closes every watch (on_close with Unavailable), fails queued writes with
  // Unavailable, and stops the threads. The destructor does it too.
  void close();

  std::size_t watcherCount() const { return hub_->watcherCount(); }
  WriteStats writeStats() const;

  struct Writer;
  struct ReaderPool;

 private:
  explicit SqliteObjectStore(SqliteObjectStoreOptions options);

  SqliteObjectStoreOptions options_;
  // An flock on data_dir/troupe.db.lock: one process at a time owns the store, since the
  // writer keeps the current revision in memory.
  int lock_fd_ = -1;
  std::unique_ptr<Writer> writer_;
  std::unique_ptr<ReaderPool> readers_;
  std::unique_ptr<WatchHub> hub_;
};

}  // namespace troupe::apiserver
