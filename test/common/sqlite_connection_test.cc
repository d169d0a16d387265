#include <sqlite3.h>
#include <catch2/catch.hpp>

#include <filesystem>
#include <optional>
#include <string>

#include "common/sqlite_connection.h"
#include "test/support/temp_dir.h"

using troupe::SqliteConnection;
using troupe::SqliteStatement;

namespace {

// A WAL database in a directory of its own, removed at scope exit.
class ScratchDatabase {
 public:
  std::filesystem::path file() const { return dir_.file("test.db"); }
  SqliteConnection open() const {
    auto c = SqliteConnection::open(file(), SqliteConnection::Mode::ReadWrite);
    REQUIRE(c.ok());
    REQUIRE(c->exec("PRAGMA journal_mode=WAL").ok());
    return std::move(*c);
  }

 private:
  troupe::testing::TempDir dir_;
};

// The statements the connection holds prepared, lent out or idle in its cache.
int preparedStatements(const SqliteConnection& c) {
  int n = 0;
  for (sqlite3_stmt* s = sqlite3_next_stmt(c.handle(), nullptr); s;
       s = sqlite3_next_stmt(c.handle(), s))
    ++n;
  return n;
}

std::optional<std::int64_t> valueOf(SqliteConnection& c, const std::string& key) {
  auto stmt = c.cached("SELECT v FROM kv WHERE k = ?1");
  REQUIRE(stmt.ok());
  stmt->bind(1, key);
  auto row = stmt->step();
  REQUIRE(row.ok());
  if (!*row) return std::nullopt;
  return stmt->columnInt(0);
}

}  // namespace

TEST_CASE("a cached statement is parsed once and comes back unbound", "[common][sqlite]") {
  ScratchDatabase db;
  auto c = db.open();
  REQUIRE(c.exec("CREATE TABLE kv (k TEXT PRIMARY KEY, v INTEGER)").ok());
  for (int i = 0; i < 100; ++i) {
    auto insert = c.cached("INSERT INTO kv (k, v) VALUES (?1, ?2)");
    REQUIRE(insert.ok());
    insert->bind(1, "k" + std::to_string(i)).bind(2, std::int64_t{i});
    REQUIRE(insert->run().ok());
  }
  // One INSERT, parsed once and reused 99 times; prepare() would leave none behind.
  CHECK(preparedStatements(c) == 1);
  CHECK(valueOf(c, "k7") == 7);
  CHECK(valueOf(c, "k99") == 99);
  CHECK(preparedStatements(c) == 2);

  SECTION("a reused statement starts with no bindings") {
    auto insert = c.cached("INSERT INTO kv (k, v) VALUES (?1, ?2)");
    REQUIRE(insert.ok());
    insert->bind(1, "unbound");  // ?2 left out: NULL, not the last use's 99
    REQUIRE(insert->run().ok());
    auto stmt = c.cached("SELECT v IS NULL FROM kv WHERE k = 'unbound'");
    REQUIRE(stmt.ok());
    REQUIRE(*stmt->step());
    CHECK(stmt->columnInt(0) == 1);
  }

  SECTION("two uses of one text at once get two statements") {
    auto outer = c.cached("SELECT k FROM kv ORDER BY k");
    REQUIRE(outer.ok());
    REQUIRE(*outer->step());
    auto inner = c.cached("SELECT k FROM kv ORDER BY k");
    REQUIRE(inner.ok());
    REQUIRE(*inner->step());
    REQUIRE(*inner->step());
    REQUIRE(*outer->step());
    CHECK(outer->columnText(0) == "k1");  // "k0", then "k1": unaffected by the inner walk
    CHECK(inner->columnText(0) == "k1");
  }

  SECTION("a statement put back half-read holds no read transaction") {
    {
      auto walk = c.cached("SELECT k FROM kv ORDER BY k");
      REQUIRE(walk.ok());
      REQUIRE(*walk->step());
    }  // back in the cache after one row of 100
    // Were it still reading, its snapshot would stop a checkpoint from emptying the WAL.
    auto other = db.open();
    REQUIRE(other.exec("UPDATE kv SET v = v + 1").ok());
    int log = -1, done = -1;
    REQUIRE(sqlite3_wal_checkpoint_v2(c.handle(), nullptr, SQLITE_CHECKPOINT_TRUNCATE, &log,
                                      &done) == SQLITE_OK);
    CHECK(log == 0);
    CHECK(valueOf(c, "k0") == 1);
  }
}

TEST_CASE("a cached statement may outlive its connection", "[common][sqlite]") {
  ScratchDatabase db;
  std::optional<SqliteStatement> kept;
  {
    auto c = db.open();
    REQUIRE(c.exec("CREATE TABLE t (x INTEGER)").ok());
    auto stmt = c.cached("SELECT count(*) FROM t");
    REQUIRE(stmt.ok());
    kept = std::move(*stmt);
  }
  // The connection is closed; the statement finalizes itself rather than returning to the
  // closed connection's cache (AddressSanitizer checks the rest).
  kept.reset();
  SUCCEED();
}
