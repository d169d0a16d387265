#pragma once

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <system_error>

#include <fmt/format.h>

#include "state/state_database.h"

namespace troupe::state::testing {

// A fresh directory under the system temp dir, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::random_device rd;
    auto base = std::filesystem::temp_directory_path();
    for (int attempt = 0; attempt < 100; ++attempt) {
      path_ = base / ("troupe-state-" + std::to_string(rd()));
      if (std::filesystem::create_directory(path_)) return;
    }
    std::abort();
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline std::unique_ptr<StateDatabase> openDatabase(const std::filesystem::path& dir) {
  auto db = StateDatabase::open(dir);
  if (!db) {
    fmt::print(stderr, "cannot open the state database: {}\n", db.error().describe());
    std::abort();
  }
  return std::move(db).value();
}

}  // namespace troupe::state::testing
