#include "common/check.h"

#include <cstdio>
#include <cstdlib>

namespace troupe::detail {

void checkFailed(const char* file, int line, const char* condition, const std::string& message) {
  std::fprintf(stderr, "%s:%d: invariant broken: %s: %s\n", file, line, condition, message.c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace troupe::detail
