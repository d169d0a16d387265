#pragma once

#include <cstdint>
#include <string>

namespace troupe::queueing {

// A name's first 16 bytes as two big-endian words (0-padded): comparing two keys orders
// the names as comparing the strings does, unless the keys are equal (then the names
// decide). Bytes compare as unsigned char, and names hold no NUL.
struct NameKey {
  std::uint64_t hi = 0, lo = 0;
};
NameKey nameKey(const std::string& name);

}  // namespace troupe::queueing
