#include "apiserver/storage/wal_checkpointer.h"

#include <sqlite3.h>

#include "common/log.h"

namespace troupe::apiserver {
namespace {

// Past this many WAL pages the checkpoint thread is not keeping up; the committing
// connection then checkpoints itself, as SQLite would by default, to bound the WAL.
constexpr int kHardLimitFactor = 4;

}  // namespace

Result<std::unique_ptr<WalCheckpointer>> WalCheckpointer::start(SqliteConnection& writer,
                                                                const std::filesystem::path& file,
                                                                int checkpoint_pages) {
  auto own = SqliteConnection::open(file, SqliteConnection::Mode::ReadWrite);
  if (!own) return own.error();
  // After a reset, keep the WAL file from staying at its high-water mark forever.
  if (auto s = writer.exec("PRAGMA journal_size_limit=16777216"); !s) return s.error();
  std::unique_ptr<WalCheckpointer> checkpointer(
      new WalCheckpointer(writer, std::move(*own), checkpoint_pages));
  // Replaces the automatic checkpoint (which is itself a WAL hook).
  sqlite3_wal_hook(writer.handle(), &WalCheckpointer::onCommit, checkpointer.get());
  checkpointer->thread_ = std::thread([c = checkpointer.get()] { c->loop(); });
  return checkpointer;
}

WalCheckpointer::WalCheckpointer(SqliteConnection& writer, SqliteConnection own,
                                 int checkpoint_pages)
    : writer_(writer), connection_(std::move(own)), checkpoint_pages_(checkpoint_pages) {}

WalCheckpointer::~WalCheckpointer() {
  sqlite3_wal_hook(writer_.handle(), nullptr, nullptr);
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

int WalCheckpointer::onCommit(void* self, sqlite3* db, const char* schema, int wal_pages) {
  auto* c = static_cast<WalCheckpointer*>(self);
  if (wal_pages >= c->checkpoint_pages_ * kHardLimitFactor) {
    sqlite3_wal_checkpoint_v2(db, schema, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
  } else if (wal_pages >= c->checkpoint_pages_) {
    {
      std::lock_guard lock(c->mu_);
      c->wanted_ = true;
    }
    c->cv_.notify_one();
  }
  return SQLITE_OK;
}

void WalCheckpointer::loop() {
  while (true) {
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || wanted_; });
      if (stopping_) return;
      wanted_ = false;
    }
    int wal_pages = 0;
    int copied = 0;
    int rc = sqlite3_wal_checkpoint_v2(connection_.handle(), nullptr, SQLITE_CHECKPOINT_PASSIVE,
                                       &wal_pages, &copied);
    if (rc != SQLITE_OK && rc != SQLITE_BUSY) {
      log::warn("storage: WAL checkpoint failed",
                {{"error", sqlite3_errmsg(connection_.handle())}});
    } else {
      ++checkpoints_;
    }
  }
}

}  // namespace troupe::apiserver
