#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "apiserver/storage/sqlite_object_store.h"
#include "test/support/temp_dir.h"

// What the storage tests share: a temporary data directory, store options sized for
// tests, and small object builders.
namespace troupe::apiserver::testing {

using troupe::testing::TempDir;

// Options for a test store: compaction only when the test asks for it.
inline SqliteObjectStoreOptions testOptions(const std::filesystem::path& dir) {
  SqliteObjectStoreOptions options;
  options.data_dir = dir;
  options.compaction.keep_revisions = 0;
  options.compaction.keep_for = std::chrono::milliseconds(0);
  return options;
}

inline std::unique_ptr<SqliteObjectStore> openStore(SqliteObjectStoreOptions options) {
  auto store = SqliteObjectStore::open(std::move(options));
  if (!store) {
    fmt::print(stderr, "cannot open the store: {}\n", store.error().describe());
    std::abort();
  }
  return std::move(store).value();
}

inline ObjectKey podKey(std::string ns, std::string name) {
  return ObjectKey{"pods", std::move(ns), std::move(name)};
}

// A small pod: enough shape to look like one, `value` to tell versions apart.
inline nlohmann::json pod(const std::string& ns, const std::string& name, int value = 0) {
  return nlohmann::json{{"apiVersion", "v1"},
                        {"kind", "Pod"},
                        {"metadata", {{"name", name}, {"namespace", ns}}},
                        {"spec", {{"value", value}}}};
}

// TROUPE_TEST_SCALE multiplies iteration counts for longer local runs (default 1).
inline int testScale() {
  const char* text = std::getenv("TROUPE_TEST_SCALE");
  if (!text) return 1;
  int scale = std::atoi(text);
  return scale > 0 ? scale : 1;
}

}  // namespace troupe::apiserver::testing
