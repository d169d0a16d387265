#pragma once

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>

#include "test/support/temp_dir.h"

namespace troupe::testing {

// Runs `promtool check metrics` (Debian's prometheus package) on a /metrics text; returns
// its exit status (0: valid) and what it printed.
inline std::pair<int, std::string> promtoolCheck(const std::string& text) {
  TempDir dir;
  auto in = dir.write("metrics.txt", text);
  auto out = dir.file("promtool.out");
  int rc = std::system(("promtool check metrics < " + in + " > " + out + " 2>&1").c_str());
  std::ifstream f(out);
  std::string output((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  return {rc, output};
}

}  // namespace troupe::testing
