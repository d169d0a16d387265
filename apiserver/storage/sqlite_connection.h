#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "common/result.h"

struct sqlite3;
struct sqlite3_stmt;

// A thin RAII layer over the SQLite C API: one connection, prepared statements, and
// every failure turned into an Error (ErrorCode::Internal, with SQLite's message).
namespace troupe::apiserver {

class SqliteStatement;

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
  // Runs a statement that returns one integer (PRAGMA journal_mode...): the first column
  // of the first row, as text.
  Result<std::string> queryText(std::string_view sql);

  sqlite3* handle() const { return db_; }

 private:
  explicit SqliteConnection(sqlite3* db) : db_(db) {}
  sqlite3* db_ = nullptr;
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

  // True when a row is ready, false when the statement is done.
  Result<bool> step();
  // Steps a statement that returns no rows (INSERT, UPDATE, DELETE).
  Status run();
  // Clears bindings and rewinds, ready for the next use.
  void reset();

  std::int64_t columnInt(int index) const;
  std::string_view columnText(int index) const;

 private:
  friend class SqliteConnection;
  SqliteStatement(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  sqlite3* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
};

}  // namespace troupe::apiserver
