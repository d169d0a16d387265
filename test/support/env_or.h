#pragma once

#include <cstdint>
#include <cstdlib>

namespace troupe::testing {

// The number in environment variable `name` (TROUPE_TEST_SEED, TROUPE_TEST_SCALE), or
// `fallback` when it is not set.
inline std::uint64_t envOr(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::strtoull(v, nullptr, 10) : fallback;
}

}  // namespace troupe::testing
