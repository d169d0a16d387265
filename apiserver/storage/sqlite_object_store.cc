#include "apiserver/storage/sqlite_object_store.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <future>
#include <map>
#include <system_error>
#include <tuple>
#include <utility>

#include "apiserver/storage/background_thread.h"
#include "apiserver/storage/object_codec.h"
#include "apiserver/storage/wal_checkpointer.h"
#include "common/check.h"
#include "common/log.h"
#include "common/sqlite_connection.h"

namespace troupe::apiserver {
namespace {

using SteadyClock = std::chrono::steady_clock;

// log.event values. Stored as integers; never renumber.
constexpr std::int64_t kAdded = 0;
constexpr std::int64_t kModified = 1;
constexpr std::int64_t kDeleted = 2;

// An object's (namespace, name) key as read from a row, in the listing's order. Keys held
// as strings convert to it, so both sides of a comparison are one type.
using KeyView = std::pair<std::string_view, std::string_view>;

// WAL pages (4 KiB) after which a checkpoint runs, as SQLite's default automatic one does,
// but on the checkpoint thread (WalCheckpointer).
constexpr int kCheckpointPages = 1000;

EventType eventTypeOf(std::int64_t event) {
  switch (event) {
    case kAdded: return EventType::Added;
    case kModified: return EventType::Modified;
    case kDeleted: return EventType::Deleted;
  }
  TROUPE_CHECK(false, "log row with unknown event {}", event);
  return EventType::Added;
}

// `log` is the history: one row per write, keyed by its revision. The row of a delete
// holds the object's last state. prev_revision is the row this write superseded (0 for a
// create), which is what compaction follows.
// `objects` is the current state: the revision of the live row of each key.
// log_by_revision lets a list at a past revision read what changed since without reading
// the rows' values; its keys rise with every write, so a commit appends to its last page.
// (It replaced log_by_key (resource, ns, name, revision), whose insert dirtied a random page
// on every write: at 100,000 objects a third of what a commit wrote.)
// `meta` holds the last revision ever committed (revisions are never reused, even when
// compaction removed every row that carried them) and the compacted revision.
constexpr const char* kSchema = R"sql(
BEGIN;
CREATE TABLE IF NOT EXISTS log (
  revision      INTEGER PRIMARY KEY,
  resource      TEXT    NOT NULL,
  ns            TEXT    NOT NULL,
  name          TEXT    NOT NULL,
  event         INTEGER NOT NULL,
  prev_revision INTEGER NOT NULL,
  value         TEXT    NOT NULL
);
DROP INDEX IF EXISTS log_by_key;
CREATE INDEX IF NOT EXISTS log_by_revision ON log (revision, resource, ns, name, prev_revision);
CREATE TABLE IF NOT EXISTS objects (
  resource TEXT    NOT NULL,
  ns       TEXT    NOT NULL,
  name     TEXT    NOT NULL,
  revision INTEGER NOT NULL,
  PRIMARY KEY (resource, ns, name)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS meta (
  name  TEXT    PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;
INSERT OR IGNORE INTO meta (name, value) VALUES ('schema_version', 1), ('revision', 0), ('compacted', 0);
COMMIT;
)sql";

std::string describeKey(const ObjectKey& key) {
  return key.ns.empty()
             ? fmt::format("{} \"{}\"", key.resource, key.name)
             : fmt::format("{} \"{}\" in namespace \"{}\"", key.resource, key.name, key.ns);
}

Status validateKey(const ObjectKey& key) {
  if (key.resource.empty()) return makeError(ErrorCode::BadRequest, "resource", "Required value");
  if (key.name.empty()) return makeError(ErrorCode::BadRequest, "metadata.name", "Required value");
  return {};
}

enum class OpKind { Create, Update, Remove, Compact };

// What the writer reports back for one write.
struct Applied {
  Revision revision = 0;
  std::string previous;  // remove: the object's last stored text
};

struct WriteOp {
  OpKind kind = OpKind::Create;
  ObjectKey key;
  std::string value;
  std::optional<Revision> expected;
  Revision compact_to = 0;
  std::promise<Result<Applied>> done;
};

}  // namespace

// ---------------------------------------------------------------------------------------
// The writer: one connection, one thread, group commit.

struct SqliteObjectStore::Writer {
  SqliteConnection db;
  std::unique_ptr<WalCheckpointer> checkpointer;  // declared after db: gone before it
  SqliteStatement begin, commit, rollback;
  SqliteStatement select_current, select_value;
  SqliteStatement insert_object, update_object, delete_object, insert_log, set_revision;
  SqliteStatement compact_superseded, compact_deleted, set_compacted;

  CompactionPolicy policy;
  std::size_t max_batch = 0;
  WatchHub* hub = nullptr;
  std::function<void(std::size_t, std::chrono::nanoseconds)> on_commit;  // set before start

  // The last committed revision and the compacted one, as durable in the database.
  std::atomic<Revision> committed{0};
  std::atomic<Revision> compacted{0};
  std::atomic<std::uint64_t> transactions{0};
  std::atomic<std::uint64_t> writes{0};

  // The error of the last write transaction when it failed for lack of space or a
  // read-only file; cleared by the next one that commits.
  mutable std::mutex health_mu;
  std::optional<Error> storage_fault;

  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::shared_ptr<WriteOp>> queue;
  bool stopping = false;
  std::thread thread;

  // (when, revision committed by then), one sample per 100 ms, for keep_for.
  std::deque<std::pair<SteadyClock::time_point, Revision>> samples;
  SteadyClock::time_point next_compaction_check{};
  Revision compaction_target = 0;

  explicit Writer(SqliteConnection connection) : db(std::move(connection)) {}

  static Result<std::unique_ptr<Writer>> open(const std::filesystem::path& file) {
    auto db = SqliteConnection::open(file, SqliteConnection::Mode::ReadWrite);
    if (!db) return db.error();
    auto mode = db->queryText("PRAGMA journal_mode=WAL");
    if (!mode) return mode.error();
    if (*mode != "wal") {
      return makeError(
          ErrorCode::Internal, "",
          fmt::format("sqlite: {} cannot use WAL mode (journal_mode={})", file.string(), *mode));
    }
    // FULL: every commit fsyncs the WAL before it returns, so an acknowledged write
    // survives a power loss, not only a process crash.
    if (auto s = db->exec("PRAGMA synchronous=FULL; PRAGMA cache_size=-32768;"); !s) {
      return s.error();
    }
    if (auto s = db->exec(kSchema); !s) return s.error();

    auto w = std::make_unique<Writer>(std::move(*db));
    struct Prepared {
      SqliteStatement* stmt;
      const char* sql;
    };
    const Prepared statements[] = {
        {&w->begin, "BEGIN IMMEDIATE"},
        {&w->commit, "COMMIT"},
        {&w->rollback, "ROLLBACK"},
        {&w->select_current,
         "SELECT revision FROM objects WHERE resource=?1 AND ns=?2 AND name=?3"},
        {&w->select_value, "SELECT value FROM log WHERE revision=?1"},
        {&w->insert_object,
         "INSERT INTO objects (resource, ns, name, revision) VALUES (?1,?2,?3,?4)"},
        {&w->update_object,
         "UPDATE objects SET revision=?4 WHERE resource=?1 AND ns=?2 AND name=?3"},
        {&w->delete_object, "DELETE FROM objects WHERE resource=?1 AND ns=?2 AND name=?3"},
        {&w->insert_log,
         "INSERT INTO log (revision, resource, ns, name, event, prev_revision, value) "
         "VALUES (?1,?2,?3,?4,?5,?6,?7)"},
        {&w->set_revision, "UPDATE meta SET value=?1 WHERE name='revision'"},
        {&w->compact_superseded,
         "DELETE FROM log WHERE revision IN (SELECT prev_revision FROM log "
         "WHERE revision > ?1 AND revision <= ?2 AND prev_revision > 0)"},
        {&w->compact_deleted, "DELETE FROM log WHERE revision > ?1 AND revision <= ?2 AND event=2"},
        {&w->set_compacted, "UPDATE meta SET value=?1 WHERE name='compacted'"},
    };
    for (const auto& p : statements) {
      auto stmt = w->db.prepare(p.sql);
      if (!stmt) return stmt.error();
      *p.stmt = std::move(*stmt);
    }
    auto meta = w->db.prepare(
        "SELECT (SELECT value FROM meta WHERE name='revision'), "
        "(SELECT value FROM meta WHERE name='compacted'), (SELECT MAX(revision) FROM log)");
    if (!meta) return meta.error();
    auto row = meta->step();
    if (!row) return row.error();
    TROUPE_CHECK(*row, "the meta query returns one row");
    Revision revision = meta->columnInt(0);
    Revision compacted = meta->columnInt(1);
    Revision max_logged = meta->columnInt(2);
    TROUPE_CHECK(max_logged <= revision && compacted <= revision,
                 "{}: meta revision {} behind the log ({}) or compaction ({})", file.string(),
                 revision, max_logged, compacted);
    w->committed = revision;
    w->compacted = compacted;
    auto checkpointer = WalCheckpointer::start(w->db, file, kCheckpointPages);
    if (!checkpointer) return checkpointer.error();
    w->checkpointer = std::move(*checkpointer);
    return w;
  }

  void start(WatchHub* watch_hub, CompactionPolicy compaction, std::size_t batch) {
    hub = watch_hub;
    policy = compaction;
    max_batch = batch;
    next_compaction_check = SteadyClock::now() + policy.interval;
    thread = startBackgroundThread("store-writer", [this] { loop(); });
  }

  void stop() {
    {
      std::lock_guard lock(mu);
      if (stopping) return;
      stopping = true;
    }
    cv.notify_all();
    if (thread.joinable()) thread.join();
    checkpointer.reset();
  }

  Result<Applied> submit(std::shared_ptr<WriteOp> op) {
    auto done = op->done.get_future();
    {
      std::lock_guard lock(mu);
      if (stopping) return makeError(ErrorCode::Unavailable, "", "the store is closing");
      queue.push_back(std::move(op));
    }
    cv.notify_one();
    return done.get();
  }

  bool autoCompaction() const { return policy.keep_revisions > 0 || policy.keep_for.count() > 0; }

  void loop() {
    while (true) {
      std::vector<std::shared_ptr<WriteOp>> batch;
      {
        std::unique_lock lock(mu);
        auto ready = [&] { return stopping || !queue.empty(); };
        if (autoCompaction()) {
          cv.wait_for(lock, policy.interval, ready);
        } else {
          cv.wait(lock, ready);
        }
        if (stopping && queue.empty()) return;
        while (!queue.empty() && batch.size() < max_batch) {
          batch.push_back(std::move(queue.front()));
          queue.pop_front();
        }
      }
      std::vector<std::shared_ptr<WriteOp>> writes;
      for (auto& op : batch) {
        if (op->kind == OpKind::Compact) {
          if (!writes.empty()) commitBatch(writes);
          writes.clear();
          op->done.set_value(compactTo(op->compact_to));
        } else {
          writes.push_back(std::move(op));
        }
      }
      if (!writes.empty()) commitBatch(writes);
      if (autoCompaction()) compactStep();
    }
  }

  // Applies one write inside the open transaction. A failed check is the write's own
  // result (`out`); a failed statement is the batch's failure (the returned Status).
  Status apply(WriteOp& op, Revision& revision, Result<Applied>& out,
               std::vector<CommittedEvent>& events) {
    const ObjectKey& key = op.key;
    select_current.bind(1, key.resource).bind(2, key.ns).bind(3, key.name);
    auto row = select_current.step();
    Revision current = row.ok() && *row ? select_current.columnInt(0) : 0;
    select_current.reset();
    if (!row) return row.error();

    if (op.kind == OpKind::Create) {
      if (current != 0) {
        out = makeError(ErrorCode::AlreadyExists, "metadata.name",
                        fmt::format("{} already exists", describeKey(key)));
        return {};
      }
    } else {
      if (current == 0) {
        out = makeError(ErrorCode::NotFound, "", fmt::format("{} not found", describeKey(key)));
        return {};
      }
      if (op.expected && *op.expected != current) {
        out = makeError(
            ErrorCode::Conflict, "metadata.resourceVersion",
            fmt::format("Operation cannot be fulfilled on {}: the object has been modified; "
                        "please apply your changes to the latest version and try again "
                        "(expected revision {}, stored {})",
                        describeKey(key), *op.expected, current));
        return {};
      }
    }

    const Revision next = revision + 1;
    Applied applied{next, {}};
    std::int64_t event = kAdded;
    Status s;
    switch (op.kind) {
      case OpKind::Create:
        s = insert_object.bind(1, key.resource)
                .bind(2, key.ns)
                .bind(3, key.name)
                .bind(4, next)
                .run();
        break;
      case OpKind::Update:
        event = kModified;
        s = update_object.bind(1, key.resource)
                .bind(2, key.ns)
                .bind(3, key.name)
                .bind(4, next)
                .run();
        break;
      case OpKind::Remove: {
        event = kDeleted;
        select_value.bind(1, current);
        auto found = select_value.step();
        if (found.ok() && *found) applied.previous = std::string(select_value.columnText(0));
        select_value.reset();
        if (!found) return found.error();
        TROUPE_CHECK(*found, "objects points at revision {} for {}, which the log lacks", current,
                     describeKey(key));
        op.value = applied.previous;
        s = delete_object.bind(1, key.resource).bind(2, key.ns).bind(3, key.name).run();
        break;
      }
      case OpKind::Compact: TROUPE_CHECK(false, "compaction is not a write"); break;
    }
    if (!s) return s;
    s = insert_log.bind(1, next)
            .bind(2, key.resource)
            .bind(3, key.ns)
            .bind(4, key.name)
            .bind(5, event)
            .bind(6, current)
            .bind(7, op.value)
            .run();
    if (!s) return s;
    revision = next;
    // The text is copied, not moved: the writing thread makes its answer from it too.
    events.push_back(CommittedEvent{eventTypeOf(event), key, next, op.value});
    out = std::move(applied);
    return {};
  }

  void failAll(const std::vector<std::shared_ptr<WriteOp>>& ops, const Error& error) {
    for (auto& op : ops) op->done.set_value(error);
  }

  void commitBatch(const std::vector<std::shared_ptr<WriteOp>>& ops) {
    const auto started = SteadyClock::now();
    if (auto s = begin.run(); !s) {
      failAll(ops, s.error());
      return;
    }
    Revision revision = committed.load();
    std::vector<Result<Applied>> results;
    results.reserve(ops.size());
    std::vector<CommittedEvent> events;
    events.reserve(ops.size());
    Status status;
    for (auto& op : ops) {
      results.emplace_back(Applied{});
      status = apply(*op, revision, results.back(), events);
      if (!status) break;
    }
    if (status && revision != committed.load()) status = set_revision.bind(1, revision).run();
    if (status) status = commit.run();
    if (!status) {
      (void)rollback.run();
      log::error("storage: a write transaction failed; its writes were rolled back",
                 {{"error", status.error().describe()}, {"writes", ops.size()}});
      if (status.error().code == ErrorCode::InsufficientStorage) {
        std::lock_guard lock(health_mu);
        storage_fault = status.error();
      }
      failAll(ops, status.error());
      return;
    }
    {
      std::lock_guard lock(health_mu);
      storage_fault.reset();
    }
    Revision before = committed.exchange(revision);
    if (revision != before) {
      ++transactions;
      writes += static_cast<std::uint64_t>(revision - before);
      hub->publish(std::move(events));
      recordSample(revision);
      if (on_commit)
        on_commit(static_cast<std::size_t>(revision - before), SteadyClock::now() - started);
    }
    for (std::size_t i = 0; i < ops.size(); ++i) ops[i]->done.set_value(std::move(results[i]));
  }

  void recordSample(Revision revision) {
    if (policy.keep_for.count() <= 0) return;
    auto now = SteadyClock::now();
    if (samples.empty() || now - samples.back().first >= std::chrono::milliseconds(100)) {
      samples.emplace_back(now, revision);
    } else {
      samples.back().second = revision;
    }
  }

  // The newest revision automatic compaction may remove history up to, now.
  Revision policyTarget() {
    Revision target = committed.load();
    if (policy.keep_revisions > 0)
      target = std::min(target, committed.load() - policy.keep_revisions);
    if (policy.keep_for.count() > 0) {
      auto cutoff = SteadyClock::now() - policy.keep_for;
      Revision by_time = 0;
      while (!samples.empty() && samples.front().first <= cutoff) {
        by_time = samples.front().second;
        if (samples.size() > 1 && samples[1].first <= cutoff) {
          samples.pop_front();
        } else {
          break;
        }
      }
      target = std::min(target, by_time);
    }
    return target;
  }

  // One bounded step of automatic compaction, so writes interleave with a long one.
  void compactStep() {
    auto now = SteadyClock::now();
    if (now >= next_compaction_check) {
      compaction_target = std::max(compaction_target, policyTarget());
      next_compaction_check = now + policy.interval;
    }
    Revision from = compacted.load();
    if (compaction_target <= from) return;
    Revision to = std::min(compaction_target, from + policy.max_revisions_per_step);
    if (auto s = compactRange(from, to); !s) {
      log::error("storage: compaction failed", {{"error", s.error().describe()}, {"to", to}});
    }
  }

  Status compactRange(Revision from, Revision to) {
    if (auto s = begin.run(); !s) return s;
    Status s = compact_superseded.bind(1, from).bind(2, to).run();
    if (s) s = compact_deleted.bind(1, from).bind(2, to).run();
    if (s) s = set_compacted.bind(1, to).run();
    if (s) s = commit.run();
    if (!s) {
      (void)rollback.run();
      return s;
    }
    compacted = to;
    return {};
  }

  Result<Applied> compactTo(Revision target) {
    if (target > committed.load()) {
      return makeError(ErrorCode::Invalid, "revision",
                       fmt::format("Invalid value: {}: must not be beyond the current revision {}",
                                   target, committed.load()));
    }
    while (compacted.load() < target) {
      Revision from = compacted.load();
      Revision to = std::min(target, from + std::max<Revision>(1, policy.max_revisions_per_step));
      if (auto s = compactRange(from, to); !s) return s.error();
    }
    return Applied{compacted.load(), {}};
  }
};

// ---------------------------------------------------------------------------------------
// Readers: a pool of connections, each reading the last committed state.

namespace {

struct Reader {
  SqliteConnection db;
  SqliteStatement begin, end, meta, get;
  SqliteStatement list_current_all, list_current_ns, changed_all, changed_ns, log_row;
  SqliteStatement history_all, history_ns;

  explicit Reader(SqliteConnection connection) : db(std::move(connection)) {}

  static Result<std::unique_ptr<Reader>> open(const std::filesystem::path& file) {
    auto db = SqliteConnection::open(file, SqliteConnection::Mode::ReadWrite);
    if (!db) return db.error();
    if (auto s = db->exec("PRAGMA query_only=1; PRAGMA cache_size=-8192;"); !s) return s.error();
    auto r = std::make_unique<Reader>(std::move(*db));
    struct Prepared {
      SqliteStatement* stmt;
      const char* sql;
    };
    const char* kCurrent =
        "SELECT o.ns, o.name, o.revision, l.value FROM objects o JOIN log l "
        "ON l.revision = o.revision WHERE o.resource=?1 AND (o.ns, o.name) > (?2, ?3) ";
    const char* kChanged =
        "SELECT ns, name, prev_revision FROM log INDEXED BY log_by_revision "
        "WHERE revision > ?1 AND revision <= ?2 AND resource = ?3 ";
    const std::string current_all = std::string(kCurrent) + "ORDER BY o.ns, o.name LIMIT ?4";
    const std::string current_ns =
        std::string(kCurrent) + "AND o.ns=?5 ORDER BY o.ns, o.name LIMIT ?4";
    const std::string changed_all = std::string(kChanged) + "ORDER BY revision";
    const std::string changed_ns = std::string(kChanged) + "AND ns = ?4 ORDER BY revision";
    const char* kHistory =
        "SELECT revision, event, ns, name, value FROM log WHERE revision > ?1 AND revision <= ?2 "
        "AND resource = ?3 ";
    const std::string history_all = std::string(kHistory) + "ORDER BY revision";
    const std::string history_ns = std::string(kHistory) + "AND ns = ?4 ORDER BY revision";
    const Prepared statements[] = {
        {&r->begin, "BEGIN"},
        {&r->end, "COMMIT"},
        {&r->meta,
         "SELECT (SELECT value FROM meta WHERE name='revision'), "
         "(SELECT value FROM meta WHERE name='compacted')"},
        {&r->get,
         "SELECT o.revision, l.value FROM objects o JOIN log l ON l.revision = o.revision "
         "WHERE o.resource=?1 AND o.ns=?2 AND o.name=?3"},
        {&r->list_current_all, current_all.c_str()},
        {&r->list_current_ns, current_ns.c_str()},
        {&r->changed_all, changed_all.c_str()},
        {&r->changed_ns, changed_ns.c_str()},
        {&r->log_row, "SELECT event, value FROM log WHERE revision=?1"},
        {&r->history_all, history_all.c_str()},
        {&r->history_ns, history_ns.c_str()},
    };
    for (const auto& p : statements) {
      auto stmt = r->db.prepare(p.sql);
      if (!stmt) return stmt.error();
      *p.stmt = std::move(*stmt);
    }
    return r;
  }

  // (current revision, compacted revision) in the open read transaction.
  Result<std::pair<Revision, Revision>> readMeta() {
    auto row = meta.step();
    std::pair<Revision, Revision> out{0, 0};
    if (row.ok() && *row) out = {meta.columnInt(0), meta.columnInt(1)};
    meta.reset();
    if (!row) return row.error();
    return out;
  }
};

}  // namespace

struct SqliteObjectStore::ReaderPool {
  std::filesystem::path file;
  std::size_t max_open = 1;
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::unique_ptr<Reader>> idle;
  std::size_t open_count = 0;

  // Lends a reader; the lease gives it back.
  class Lease {
   public:
    Lease(ReaderPool* pool, std::unique_ptr<Reader> reader)
        : pool_(pool), reader_(std::move(reader)) {}
    Lease(Lease&&) = default;
    ~Lease() {
      if (reader_) pool_->giveBack(std::move(reader_));
    }
    Reader* operator->() { return reader_.get(); }

   private:
    ReaderPool* pool_;
    std::unique_ptr<Reader> reader_;
  };

  Result<Lease> acquire() {
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return !idle.empty() || open_count < max_open; });
    if (!idle.empty()) {
      auto reader = std::move(idle.back());
      idle.pop_back();
      return Lease(this, std::move(reader));
    }
    ++open_count;
    lock.unlock();
    auto reader = Reader::open(file);
    if (!reader) {
      std::lock_guard relock(mu);
      --open_count;
      cv.notify_one();
      return reader.error();
    }
    return Lease(this, std::move(*reader));
  }

  void giveBack(std::unique_ptr<Reader> reader) {
    {
      std::lock_guard lock(mu);
      idle.push_back(std::move(reader));
    }
    cv.notify_one();
  }

  // Runs `body` inside one read transaction (one consistent snapshot).
  template <typename T, typename Body>
  Result<T> transaction(Body&& body) {
    auto lease = acquire();
    if (!lease) return lease.error();
    Reader& r = *lease.value().operator->();
    if (auto s = r.begin.run(); !s) return s.error();
    Result<T> result = body(r);
    if (auto s = r.end.run(); !s) {
      // A read-only transaction cannot fail to commit for any reason the caller can
      // act on; roll back to leave the connection clean.
      (void)r.db.exec("ROLLBACK");
    }
    return result;
  }

  Result<std::vector<WatchEvent>> history(const std::string& resource, const std::string& ns,
                                          Revision after, Revision upto) {
    return transaction<std::vector<WatchEvent>>([&](Reader& r) -> Result<std::vector<WatchEvent>> {
      auto meta = r.readMeta();
      if (!meta) return meta.error();
      if (after < meta->second) {
        return makeError(ErrorCode::Gone, "",
                         fmt::format("too old resource version: {} ({})", after, meta->second));
      }
      SqliteStatement& stmt = ns.empty() ? r.history_all : r.history_ns;
      stmt.bind(1, after).bind(2, upto).bind(3, resource);
      if (!ns.empty()) stmt.bind(4, ns);
      std::vector<WatchEvent> events;
      while (true) {
        auto row = stmt.step();
        if (!row) {
          stmt.reset();
          return row.error();
        }
        if (!*row) break;
        const Revision revision = stmt.columnInt(0);
        events.emplace_back(
            eventTypeOf(stmt.columnInt(1)),
            ObjectKey{resource, std::string(stmt.columnText(2)), std::string(stmt.columnText(3))},
            revision, revisionText(stmt.columnText(4), revision));
      }
      stmt.reset();
      return events;
    });
  }
};

// ---------------------------------------------------------------------------------------

SqliteObjectStore::SqliteObjectStore(SqliteObjectStoreOptions options)
    : options_(std::move(options)) {}

Result<std::unique_ptr<SqliteObjectStore>> SqliteObjectStore::open(
    SqliteObjectStoreOptions options) {
  if (options.data_dir.empty()) {
    return makeError(ErrorCode::Invalid, "data_dir", "Required value: the store needs a directory");
  }
  if (options.max_batch == 0) {
    return makeError(ErrorCode::Invalid, "max_batch", "Invalid value: 0: must be positive");
  }
  if (options.max_readers == 0) {
    return makeError(ErrorCode::Invalid, "max_readers", "Invalid value: 0: must be positive");
  }
  if (options.compaction.keep_revisions < 0) {
    return makeError(ErrorCode::Invalid, "compaction.keep_revisions",
                     "Invalid value: must be 0 (off) or positive");
  }
  if (options.compaction.max_revisions_per_step <= 0) {
    return makeError(ErrorCode::Invalid, "compaction.max_revisions_per_step",
                     "Invalid value: must be positive");
  }
  if ((options.compaction.keep_revisions > 0 || options.compaction.keep_for.count() > 0) &&
      options.compaction.interval.count() <= 0) {
    return makeError(ErrorCode::Invalid, "compaction.interval",
                     "Invalid value: must be positive when compaction is on");
  }
  std::error_code ec;
  std::filesystem::create_directories(options.data_dir, ec);
  if (ec) {
    return makeError(ErrorCode::Internal, "data_dir",
                     fmt::format("cannot create {}: {}", options.data_dir.string(), ec.message()));
  }
  const auto file = options.data_dir / kDatabaseFile;

  std::unique_ptr<SqliteObjectStore> store(new SqliteObjectStore(std::move(options)));
  const auto lock_file = store->options_.data_dir / (std::string(kDatabaseFile) + ".lock");
  store->lock_fd_ = ::open(lock_file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (store->lock_fd_ < 0) {
    return makeError(ErrorCode::Internal, "data_dir",
                     fmt::format("cannot open {}: {}", lock_file.string(), std::strerror(errno)));
  }
  if (::flock(store->lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    return makeError(ErrorCode::Unavailable, "data_dir",
                     fmt::format("{} is in use by another Troupe store (lock {})",
                                 store->options_.data_dir.string(), lock_file.string()));
  }
  auto writer = Writer::open(file);
  if (!writer) return writer.error();
  store->writer_ = std::move(*writer);
  store->readers_ = std::make_unique<ReaderPool>();
  store->readers_->file = file;
  store->readers_->max_open = store->options_.max_readers;
  ReaderPool* readers = store->readers_.get();
  store->hub_ = std::make_unique<WatchHub>(
      store->options_.watch,
      [readers](const std::string& resource, const std::string& ns, Revision after, Revision upto) {
        return readers->history(resource, ns, after, upto);
      },
      store->writer_->committed.load());
  store->writer_->on_commit = store->options_.on_commit;
  store->writer_->start(store->hub_.get(), store->options_.compaction, store->options_.max_batch);
  log::info("storage: opened", {{"file", file.string()},
                                {"revision", store->writer_->committed.load()},
                                {"compacted", store->writer_->compacted.load()}});
  return store;
}

void SqliteObjectStore::close() {
  if (writer_) writer_->stop();
  if (hub_) hub_->close();
}

SqliteObjectStore::~SqliteObjectStore() {
  close();
  hub_.reset();
  readers_.reset();
  writer_.reset();
  if (lock_fd_ >= 0) ::close(lock_fd_);  // releases the flock
}

Status SqliteObjectStore::writable() const {
  {
    std::lock_guard lock(writer_->health_mu);
    if (writer_->storage_fault) return *writer_->storage_fault;
  }
  struct statvfs fs {};
  if (::statvfs(options_.data_dir.c_str(), &fs) != 0) {
    return makeError(ErrorCode::InsufficientStorage, "data_dir",
                     fmt::format("cannot read the filesystem of {}: {}", options_.data_dir.string(),
                                 std::strerror(errno)));
  }
  if (fs.f_flag & ST_RDONLY) {
    return makeError(ErrorCode::InsufficientStorage, "data_dir",
                     fmt::format("{} is on a read-only filesystem", options_.data_dir.string()));
  }
  const std::uint64_t free_bytes = static_cast<std::uint64_t>(fs.f_bavail) * fs.f_frsize;
  if (free_bytes < kMinFreeBytes) {
    return makeError(ErrorCode::InsufficientStorage, "data_dir",
                     fmt::format("{} bytes free on the filesystem of {}", free_bytes,
                                 options_.data_dir.string()));
  }
  if (::access(options_.data_dir.c_str(), W_OK) != 0) {
    return makeError(
        ErrorCode::InsufficientStorage, "data_dir",
        fmt::format("{} is not writable: {}", options_.data_dir.string(), std::strerror(errno)));
  }
  return {};
}

Result<StoredObject> SqliteObjectStore::create(const ObjectKey& key, nlohmann::json object) {
  if (auto s = validateKey(key); !s) return s.error();
  auto text = encodeObject(object);
  if (!text) return text.error();
  auto op = std::make_shared<WriteOp>();
  op->kind = OpKind::Create;
  op->key = key;
  op->value = std::move(*text);
  auto applied = writer_->submit(op);
  if (!applied) return applied.error();
  stampRevision(object, applied->revision);
  return StoredObject{key, applied->revision, std::move(object),
                      stampRevisionText(op->value, applied->revision)};
}

Result<StoredObject> SqliteObjectStore::update(const ObjectKey& key, nlohmann::json object,
                                               std::optional<Revision> expected) {
  if (auto s = validateKey(key); !s) return s.error();
  auto text = encodeObject(object);
  if (!text) return text.error();
  auto op = std::make_shared<WriteOp>();
  op->kind = OpKind::Update;
  op->key = key;
  op->value = std::move(*text);
  op->expected = expected;
  auto applied = writer_->submit(op);
  if (!applied) return applied.error();
  stampRevision(object, applied->revision);
  return StoredObject{key, applied->revision, std::move(object),
                      stampRevisionText(op->value, applied->revision)};
}

Result<StoredObject> SqliteObjectStore::remove(const ObjectKey& key,
                                               std::optional<Revision> expected) {
  if (auto s = validateKey(key); !s) return s.error();
  auto op = std::make_shared<WriteOp>();
  op->kind = OpKind::Remove;
  op->key = key;
  op->expected = expected;
  auto applied = writer_->submit(std::move(op));
  if (!applied) return applied.error();
  return StoredObject{key, applied->revision, decodeObject(applied->previous, applied->revision),
                      stampRevisionText(applied->previous, applied->revision)};
}

Status SqliteObjectStore::compact(Revision revision) {
  auto op = std::make_shared<WriteOp>();
  op->kind = OpKind::Compact;
  op->compact_to = revision;
  auto applied = writer_->submit(std::move(op));
  if (!applied) return applied.error();
  return {};
}

Result<StoredObject> SqliteObjectStore::get(const ObjectKey& key) {
  if (auto s = validateKey(key); !s) return s.error();
  auto lease = readers_->acquire();
  if (!lease) return lease.error();
  Reader& r = *lease.value().operator->();
  r.get.bind(1, key.resource).bind(2, key.ns).bind(3, key.name);
  auto row = r.get.step();
  if (!row) {
    r.get.reset();
    return row.error();
  }
  if (!*row) {
    r.get.reset();
    return makeError(ErrorCode::NotFound, "", fmt::format("{} not found", describeKey(key)));
  }
  Revision revision = r.get.columnInt(0);
  StoredObject out{key, revision, decodeObject(r.get.columnText(1), revision)};
  r.get.reset();
  return out;
}

Result<ListResult> SqliteObjectStore::list(const ListOptions& options) {
  if (options.resource.empty()) {
    return makeError(ErrorCode::BadRequest, "resource", "Required value");
  }
  if (options.at_revision < 0) {
    return makeError(ErrorCode::BadRequest, "resourceVersion",
                     fmt::format("Invalid value: {}: must not be negative", options.at_revision));
  }
  const std::string after_ns = options.after ? options.after->ns : std::string();
  const std::string after_name = options.after ? options.after->name : std::string();
  // Ask for one more than the limit to learn whether there is more.
  const std::int64_t want = options.limit == 0 ? -1 : static_cast<std::int64_t>(options.limit) + 1;

  return readers_->transaction<ListResult>([&](Reader& r) -> Result<ListResult> {
    auto meta = r.readMeta();
    if (!meta) return meta.error();
    // Named variables, not a structured binding: the lambdas below capture them.
    const Revision current = meta->first;
    const Revision compacted = meta->second;
    ListResult out;
    Revision at = options.at_revision == 0 ? current : options.at_revision;
    out.revision = at;
    if (at < compacted) {
      return makeError(ErrorCode::Gone, "",
                       "The resourceVersion for the provided list is too old.");
    }
    if (at > current) {
      return makeError(ErrorCode::Timeout, "",
                       fmt::format("Too large resource version: {}, current: {}", at, current));
    }
    // The state at `at` is the current one with each key written since put back as it was
    // then: the row that the first write after `at` superseded, or nothing when that write
    // created the key. By key, past the page's start: the revision it had at `at` (0: none).
    std::map<std::pair<std::string, std::string>, Revision> rewound;
    if (at < current) {
      SqliteStatement& changed = options.ns.empty() ? r.changed_all : r.changed_ns;
      changed.bind(1, at).bind(2, current).bind(3, options.resource);
      if (!options.ns.empty()) changed.bind(4, options.ns);
      while (true) {
        auto row = changed.step();
        if (!row) {
          changed.reset();
          return row.error();
        }
        if (!*row) break;
        auto ns = changed.columnText(0), name = changed.columnText(1);
        if (KeyView(ns, name) <= KeyView(after_ns, after_name)) continue;
        // In revision order: the first row of a key is the write that superseded its state.
        rewound.try_emplace({std::string(ns), std::string(name)}, changed.columnInt(2));
      }
      changed.reset();
    }
    auto full = [&] { return want >= 0 && static_cast<std::int64_t>(out.items.size()) >= want; };
    auto next_rewound = rewound.begin();
    // Lists the next rewound key as it was at `at`, when it existed then.
    auto listRewound = [&]() -> Status {
      const auto& [key, revision] = *next_rewound++;
      if (revision == 0) return {};
      r.log_row.bind(1, revision);
      auto found = r.log_row.step();
      if (!found || !*found) {
        r.log_row.reset();
        if (!found) return found.error();
        // A row a later write superseded is kept by compaction as long as reads at `at`
        // (at or after the compacted revision) are served, and the read is one transaction.
        TROUPE_CHECK(false, "log row {} of {}/{} missing for a read at revision {} (compacted {})",
                     revision, key.first, key.second, at, compacted);
      }
      if (r.log_row.columnInt(0) != kDeleted) {
        out.items.push_back(StoredObject{ObjectKey{options.resource, key.first, key.second},
                                         revision,
                                         decodeObject(r.log_row.columnText(1), revision)});
      }
      r.log_row.reset();
      return {};
    };
    // The current objects in key order, with the rewound keys merged in.
    SqliteStatement& stmt = options.ns.empty() ? r.list_current_all : r.list_current_ns;
    // Without a limit when keys are rewound: those the statement returns are skipped.
    stmt.bind(1, options.resource).bind(2, after_ns).bind(3, after_name);
    stmt.bind(4, rewound.empty() ? want : std::int64_t{-1});
    if (!options.ns.empty()) stmt.bind(5, options.ns);
    while (!full()) {
      auto row = stmt.step();
      if (!row) {
        stmt.reset();
        return row.error();
      }
      if (!*row) break;
      const KeyView key(stmt.columnText(0), stmt.columnText(1));
      while (!full() && next_rewound != rewound.end() && KeyView(next_rewound->first) < key) {
        if (auto s = listRewound(); !s) {
          stmt.reset();
          return s.error();
        }
      }
      if (full()) break;
      if (next_rewound != rewound.end() && next_rewound->first.first == key.first &&
          next_rewound->first.second == key.second) {
        if (auto s = listRewound(); !s) {
          stmt.reset();
          return s.error();
        }
        continue;
      }
      Revision revision = stmt.columnInt(2);
      out.items.push_back(
          StoredObject{ObjectKey{options.resource, std::string(key.first), std::string(key.second)},
                       revision, decodeObject(stmt.columnText(3), revision)});
    }
    stmt.reset();
    while (!full() && next_rewound != rewound.end()) {
      if (auto s = listRewound(); !s) return s.error();
    }
    if (want >= 0 && static_cast<std::int64_t>(out.items.size()) == want) {
      out.items.pop_back();
      out.more = true;
    }
    return out;
  });
}

Result<std::unique_ptr<Watch>> SqliteObjectStore::watch(WatchOptions options) {
  if (options.after_revision < 0) {
    return makeError(
        ErrorCode::BadRequest, "resourceVersion",
        fmt::format("Invalid value: {}: must not be negative", options.after_revision));
  }
  if (options.after_revision == 0) {
    options.after_revision = currentRevision();
  } else if (options.after_revision < compactedRevision()) {
    return makeError(ErrorCode::Gone, "",
                     fmt::format("too old resource version: {} ({})", options.after_revision,
                                 compactedRevision()));
  }
  return hub_->watch(std::move(options));
}

WriteStats SqliteObjectStore::writeStats() const {
  return WriteStats{writer_->transactions.load(), writer_->writes.load()};
}

Revision SqliteObjectStore::currentRevision() const { return writer_->committed.load(); }

Revision SqliteObjectStore::compactedRevision() const { return writer_->compacted.load(); }

}  // namespace troupe::apiserver
