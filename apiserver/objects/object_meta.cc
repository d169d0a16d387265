#include "apiserver/objects/object_meta.h"

#include <fmt/format.h>

#include <random>

namespace troupe::apiserver {

namespace {
std::mt19937_64& rng() {
  thread_local std::mt19937_64 engine{std::random_device{}()};
  return engine;
}
}  // namespace

std::string newUid() {
  std::uniform_int_distribution<std::uint64_t> dist;
  std::uint64_t a = dist(rng()), b = dist(rng());
  a = (a & 0xffffffffffff0fffULL) | 0x0000000000004000ULL;  // version 4
  b = (b & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;  // RFC 4122 variant
  return fmt::format("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", a >> 32, (a >> 16) & 0xffff, a & 0xffff,
                     b >> 48, b & 0xffffffffffffULL);
}

std::string randomSuffix() {
  static const char alphabet[] = "bcdfghjklmnpqrstvwxz2456789";
  std::uniform_int_distribution<int> dist(0, sizeof(alphabet) - 2);
  std::string out;
  for (int i = 0; i < 5; ++i) out.push_back(alphabet[dist(rng())]);
  return out;
}

}  // namespace troupe::apiserver
