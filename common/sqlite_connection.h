#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "common/result.h"

struct sqlite3;
struct sqlite3_stmt;

// A thin RAII layer over the SQLite C API: one connection, prepared statements, and
// every failure turned into an Error (ErrorCode::Internal, with SQLite's message).
namespace troupe {

class SqliteStatement;
struct StatementCache;  // sqlite_connection.cc

class SqliteConnection {
 public:
  enum class Mode { ReadWrite, ReadOnly };

  // Opens (creating it for ReadWrite) the database file at `path`.
  static Result<SqliteConnection> open(const std::filesystem::path& path, Mode mode);

  SqliteConnection(SqliteConnection&& other) noexcept;
  SqliteConnection& operator=(SqliteConnection&& other) noexcept;
  SqliteConnection(const SqliteConnection&) = delete;
  SqliteConnection& operator=(const SqliteConnection&) = delete;
  ~SqliteConnection();

  // Runs one or more statements that return no rows of interest.
  Status exec(std::string_view sql);
  Result<SqliteStatement> prepare(std::string_view sql);
  // prepare() for SQL run again and again (the state store's per-gang statements): the
  // statement goes back to this connection's cache when it is destroyed (reset, bindings
  // cleared), and the next cached() of the same text takes it back without parsing the SQL
  // again. Parsing was most of a state-store write: 20,000 admissions closed in one
  // transaction took 670 ms, four prepares a gang. A statement of the same text still in
  // use gets a fresh one beside it. Only for fixed SQL texts: the cache keeps at most
  // kMaxCachedStatements and finalizes the rest.
  Result<SqliteStatement> cached(std::string_view sql);
  static constexpr std::size_t kMaxCachedStatements = 64;
  // Runs a statement that returns one integer (PRAGMA journal_mode...): the first column
  // of the first row, as text.
  Result<std::string> queryText(std::string_view sql);

  sqlite3* handle() const { return db_; }

 private:
  explicit SqliteConnection(sqlite3* db);
  void close();
  sqlite3* db_ = nullptr;
  std::shared_ptr<StatementCache> cache_;  // shared with the statements it lent
};

// A prepared statement. Bind by 1-based index, step, read columns, reset to reuse.
class SqliteStatement {
 public:
  SqliteStatement() = default;  // empty until a prepared statement is moved in
  SqliteStatement(SqliteStatement&& other) noexcept;
  SqliteStatement& operator=(SqliteStatement&& other) noexcept;
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;
  ~SqliteStatement();

  SqliteStatement& bind(int index, std::int64_t value);
  SqliteStatement& bind(int index, std::string_view value);
  SqliteStatement& bind(int index, double value);
  SqliteStatement& bindNull(int index);

  // True when a row is ready, false when the statement is done.
  Result<bool> step();
  // Steps a statement that returns no rows (INSERT, UPDATE, DELETE).
  Status run();
  // Clears bindings and rewinds, ready for the next use.
  void reset();

  std::int64_t columnInt(int index) const;
  std::string_view columnText(int index) const;
  double columnDouble(int index) const;
  bool columnIsNull(int index) const;

 private:
  friend class SqliteConnection;
  SqliteStatement(sqlite3* db, sqlite3_stmt* stmt, std::shared_ptr<StatementCache> cache = {})
      : db_(db), stmt_(stmt), cache_(std::move(cache)) {}
  void release();
  sqlite3* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
  std::shared_ptr<StatementCache> cache_;  // set: goes back there instead of being finalized
};

}  // namespace troupe
