#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

#include "common/check.h"

namespace troupe::testing {

// A fresh directory under $TMPDIR, made with mkdtemp so parallel tests never share one,
// and removed with everything in it at scope exit: a test run leaves /tmp as it found it.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "troupe-test-XXXXXX").string();
    TROUPE_CHECK(::mkdtemp(pattern.data()) != nullptr, "mkdtemp {}", pattern);
    path_ = std::move(pattern);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

  // Writes `content` to `name` (creating parent folders) and returns the full path.
  std::string write(const std::string& name, const std::string& content) const {
    const std::filesystem::path p = file(name);
    std::filesystem::create_directories(p.parent_path());
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out << content;
    return p.string();
  }

 private:
  std::string path_;
};

}  // namespace troupe::testing
