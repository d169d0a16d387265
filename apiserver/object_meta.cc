#include "apiserver/object_meta.h"

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

std::string checkDnsSubdomain(const std::string& name) {
  static const char* rule =
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
      "'-' or '.', and must start and end with an alphanumeric character (e.g. "
      "'example.com', regex used for validation is "
      "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
  if (name.size() > 253) return "must be no more than 253 characters";
  if (name.empty()) return rule;
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (!alnum(name.front()) || !alnum(name.back())) return rule;
  for (std::size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    if (alnum(c) || c == '-') continue;
    if (c == '.' && alnum(name[i - 1]) && alnum(name[i + 1])) continue;
    return rule;
  }
  return "";
}

}  // namespace troupe::apiserver
