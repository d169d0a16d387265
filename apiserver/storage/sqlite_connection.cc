#include "apiserver/storage/sqlite_connection.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <utility>

namespace troupe::apiserver {
namespace {

Error sqliteError(sqlite3* db, std::string_view what) {
  return makeError(ErrorCode::Internal, "",
                   fmt::format("sqlite: {}: {}", what, db ? sqlite3_errmsg(db) : "out of memory"));
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

SqliteConnection::SqliteConnection(SqliteConnection&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)) {}

SqliteConnection& SqliteConnection::operator=(SqliteConnection&& other) noexcept {
  if (this != &other) {
    if (db_) sqlite3_close_v2(db_);
    db_ = std::exchange(other.db_, nullptr);
  }
  return *this;
}

SqliteConnection::~SqliteConnection() {
  if (db_) sqlite3_close_v2(db_);
}

Status SqliteConnection::exec(std::string_view sql) {
  std::string text(sql);
  char* message = nullptr;
  int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &message);
  if (rc != SQLITE_OK) {
    std::string detail = message ? message : sqlite3_errstr(rc);
    sqlite3_free(message);
    return makeError(ErrorCode::Internal, "", fmt::format("sqlite: {}: {}", text, detail));
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

Result<std::string> SqliteConnection::queryText(std::string_view sql) {
  auto stmt = prepare(sql);
  if (!stmt) return stmt.error();
  auto row = stmt->step();
  if (!row) return row.error();
  if (!*row) return std::string();
  return std::string(stmt->columnText(0));
}

SqliteStatement::SqliteStatement(SqliteStatement&& other) noexcept
    : db_(other.db_), stmt_(std::exchange(other.stmt_, nullptr)) {}

SqliteStatement& SqliteStatement::operator=(SqliteStatement&& other) noexcept {
  if (this != &other) {
    if (stmt_) sqlite3_finalize(stmt_);
    db_ = other.db_;
    stmt_ = std::exchange(other.stmt_, nullptr);
  }
  return *this;
}

SqliteStatement::~SqliteStatement() {
  if (stmt_) sqlite3_finalize(stmt_);
}

SqliteStatement& SqliteStatement::bind(int index, std::int64_t value) {
  sqlite3_bind_int64(stmt_, index, value);
  return *this;
}

SqliteStatement& SqliteStatement::bind(int index, std::string_view value) {
  sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT);
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

}  // namespace troupe::apiserver
