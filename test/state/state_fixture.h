#pragma once

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "state/state_database.h"
#include "test/support/temp_dir.h"

namespace troupe::state::testing {

using troupe::testing::TempDir;

inline std::unique_ptr<StateDatabase> openDatabase(const std::filesystem::path& dir) {
  auto db = StateDatabase::open(dir);
  if (!db) {
    fmt::print(stderr, "cannot open the state database: {}\n", db.error().describe());
    std::abort();
  }
  return std::move(db).value();
}

}  // namespace troupe::state::testing
