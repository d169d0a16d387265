#include "common/sqlite_connection.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <utility>
#include <vector>

namespace troupe {

// Idle prepared statements by SQL text. Shared between a connection and the statements it
// lent, so that a statement destroyed after its connection finalizes itself instead of
// returning to a cache nobody will read.
struct StatementCache {
  std::map<std::string, std::vector<sqlite3_stmt*>, std::less<>> idle;
  std::size_t size = 0;
  bool closed = false;

  void finalizeAll() {
    for (auto& [sql, stmts] : idle)
      for (auto* stmt : stmts) sqlite3_finalize(stmt);
    idle.clear();
    size = 0;
  }
};

namespace {

// A full disk or a read-only file is a fault of the place the database lives, which the
// server reports as such (507) rather than as a bug of its own.
// Writes the disk refused: no room (a full filesystem, a quota, a file size limit), a
// read-only file or filesystem, or a write or flush that failed. SQLite's errno for them
// is not always kept (it reads errno after the fact), so the code decides.
ErrorCode codeOf(sqlite3* db) {
  if (!db) return ErrorCode::Internal;
  const int code = sqlite3_extended_errcode(db);
  switch (code & 0xff) {
    case SQLITE_FULL:
    case SQLITE_READONLY: return ErrorCode::InsufficientStorage;
    case SQLITE_IOERR:
      switch (code) {
        case SQLITE_IOERR_WRITE:
        case SQLITE_IOERR_FSYNC:
        case SQLITE_IOERR_DIR_FSYNC:
        case SQLITE_IOERR_TRUNCATE:
        case SQLITE_IOERR_SHMSIZE: return ErrorCode::InsufficientStorage;
        default: break;
      }
      [[fallthrough]];
    case SQLITE_CANTOPEN: {
      const int error_number = sqlite3_system_errno(db);
      return error_number == ENOSPC || error_number == EDQUOT || error_number == EFBIG ||
                     error_number == EROFS
                 ? ErrorCode::InsufficientStorage
                 : ErrorCode::Internal;
    }
    default: return ErrorCode::Internal;
  }
}

// SQLite's message, and for a failed system call the system's reason ("No space left on
// device"), which SQLite's own words ("disk I/O error") leave out.
std::string describe(sqlite3* db, std::string message) {
  if (!db) return message;
  switch (sqlite3_extended_errcode(db) & 0xff) {
    case SQLITE_FULL:
    case SQLITE_READONLY:
    case SQLITE_IOERR:
    case SQLITE_CANTOPEN:
      if (int error_number = sqlite3_system_errno(db); error_number != 0)
        message += fmt::format(" ({})", std::strerror(error_number));
      break;
    default: break;
  }
  return message;
}

Error sqliteError(sqlite3* db, std::string_view what) {
  return makeError(
      codeOf(db), "",
      fmt::format("sqlite: {}: {}", what, describe(db, db ? sqlite3_errmsg(db) : "out of memory")));
}

}  // namespace

Result<SqliteConnection> SqliteConnection::open(const std::filesystem::path& path, Mode mode) {
  sqlite3* db = nullptr;
  int flags = SQLITE_OPEN_NOMUTEX;  // each connection is used by one thread at a time
  flags |=
      mode == Mode::ReadWrite ? (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) : SQLITE_OPEN_READONLY;
  int rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
  if (rc != SQLITE_OK) {
    Error error = sqliteError(db, fmt::format("open {}", path.string()));
    sqlite3_close(db);
    return error;
  }
  sqlite3_extended_result_codes(db, 1);
  // Readers never wait behind the writer in WAL mode; the timeout only covers schema
  // setup and checkpoints racing at open.
  sqlite3_busy_timeout(db, 10000);
  return SqliteConnection(db);
}

SqliteConnection::SqliteConnection(sqlite3* db)
    : db_(db), cache_(std::make_shared<StatementCache>()) {}

SqliteConnection::SqliteConnection(SqliteConnection&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)), cache_(std::move(other.cache_)) {}

SqliteConnection& SqliteConnection::operator=(SqliteConnection&& other) noexcept {
  if (this != &other) {
    close();
    db_ = std::exchange(other.db_, nullptr);
    cache_ = std::move(other.cache_);
  }
  return *this;
}

SqliteConnection::~SqliteConnection() { close(); }

void SqliteConnection::close() {
  if (cache_) {
    cache_->finalizeAll();
    cache_->closed = true;
    cache_.reset();
  }
  // close_v2: statements still lent out keep the handle alive until they are finalized.
  if (db_) sqlite3_close_v2(std::exchange(db_, nullptr));
}

Status SqliteConnection::exec(std::string_view sql) {
  std::string text(sql);
  char* message = nullptr;
  int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &message);
  if (rc != SQLITE_OK) {
    std::string detail = describe(db_, message ? message : sqlite3_errstr(rc));
    sqlite3_free(message);
    return makeError(codeOf(db_), "", fmt::format("sqlite: {}: {}", text, detail));
  }
  return {};
}

Result<SqliteStatement> SqliteConnection::prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()),
                              SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
  if (rc != SQLITE_OK) return sqliteError(db_, fmt::format("prepare {}", sql));
  return SqliteStatement(db_, stmt);
}

Result<SqliteStatement> SqliteConnection::cached(std::string_view sql) {
  auto it = cache_->idle.find(sql);
  if (it != cache_->idle.end() && !it->second.empty()) {
    sqlite3_stmt* stmt = it->second.back();
    it->second.pop_back();
    --cache_->size;
    return SqliteStatement(db_, stmt, cache_);
  }
  auto fresh = prepare(sql);
  if (!fresh) return fresh.error();
  fresh->cache_ = cache_;
  return fresh;
}

Result<std::string> SqliteConnection::queryText(std::string_view sql) {
  auto stmt = prepare(sql);
  if (!stmt) return stmt.error();
  auto row = stmt->step();
  if (!row) return row.error();
  if (!*row) return std::string();
  return std::string(stmt->columnText(0));
}

SqliteStatement::SqliteStatement(SqliteStatement&& other) noexcept
    : db_(other.db_), stmt_(std::exchange(other.stmt_, nullptr)), cache_(std::move(other.cache_)) {}

SqliteStatement& SqliteStatement::operator=(SqliteStatement&& other) noexcept {
  if (this != &other) {
    release();
    db_ = other.db_;
    stmt_ = std::exchange(other.stmt_, nullptr);
    cache_ = std::move(other.cache_);
  }
  return *this;
}

SqliteStatement::~SqliteStatement() { release(); }

void SqliteStatement::release() {
  if (!stmt_) return;
  sqlite3_stmt* stmt = std::exchange(stmt_, nullptr);
  auto cache = std::move(cache_);
  if (!cache || cache->closed || cache->size >= SqliteConnection::kMaxCachedStatements) {
    sqlite3_finalize(stmt);
    return;
  }
  // Rewound and unbound, as a fresh statement: a half-stepped SELECT would otherwise keep
  // its read transaction open while it sits in the cache.
  sqlite3_reset(stmt);
  sqlite3_clear_bindings(stmt);
  cache->idle[sqlite3_sql(stmt)].push_back(stmt);
  ++cache->size;
}

SqliteStatement& SqliteStatement::bind(int index, std::int64_t value) {
  sqlite3_bind_int64(stmt_, index, value);
  return *this;
}

SqliteStatement& SqliteStatement::bind(int index, std::string_view value) {
  sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT);
  return *this;
}

SqliteStatement& SqliteStatement::bind(int index, double value) {
  sqlite3_bind_double(stmt_, index, value);
  return *this;
}

SqliteStatement& SqliteStatement::bindNull(int index) {
  sqlite3_bind_null(stmt_, index);
  return *this;
}

Result<bool> SqliteStatement::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return sqliteError(db_, fmt::format("step {}", sqlite3_sql(stmt_)));
}

Status SqliteStatement::run() {
  auto row = step();
  reset();
  if (!row) return row.error();
  return {};
}

void SqliteStatement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

std::int64_t SqliteStatement::columnInt(int index) const {
  return sqlite3_column_int64(stmt_, index);
}

std::string_view SqliteStatement::columnText(int index) const {
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, index));
  if (!text) return {};
  return std::string_view(text, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, index)));
}

double SqliteStatement::columnDouble(int index) const {
  return sqlite3_column_double(stmt_, index);
}

bool SqliteStatement::columnIsNull(int index) const {
  return sqlite3_column_type(stmt_, index) == SQLITE_NULL;
}

}  // namespace troupe
