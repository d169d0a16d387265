#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <sstream>
#include <string>

#include "apiserver/storage/object_codec.h"

// What the crash writer (a child process) reports for each acknowledged write, one line
// each on its stdout: "<op> <namespace> <name> <revision> <hash>", op C, U or D. The
// hash is over the object's stored form (without resourceVersion), so the parent can
// check that what it finds after the crash is exactly what was acknowledged.
namespace troupe::apiserver::testing {

inline constexpr const char* kCrashResource = "crashobjects";

inline std::uint64_t contentHash(nlohmann::json object) {
  auto text = encodeObject(object);
  std::uint64_t hash = 14695981039346656037ull;  // FNV-1a, 64 bit
  for (unsigned char c : text.value()) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

struct Ack {
  char op = 'C';
  std::string ns;
  std::string name;
  std::int64_t revision = 0;
  std::uint64_t hash = 0;

  std::string line() const {
    std::ostringstream out;
    out << op << ' ' << ns << ' ' << name << ' ' << revision << ' ' << hash << '\n';
    return out.str();
  }

  static std::optional<Ack> parse(const std::string& line) {
    std::istringstream in(line);
    Ack ack;
    if (!(in >> ack.op >> ack.ns >> ack.name >> ack.revision >> ack.hash)) return std::nullopt;
    if (ack.op != 'C' && ack.op != 'U' && ack.op != 'D') return std::nullopt;
    return ack;
  }
};

}  // namespace troupe::apiserver::testing
