#include "simulator/owed_guarantee.h"

#include <algorithm>
#include <vector>

namespace troupe::simulator {
namespace {

// bits |= bits << by, over the first `width` bits (the rest stay clear).
void orShifted(std::vector<uint64_t>& bits, int64_t by, int64_t width) {
  const auto words = static_cast<int64_t>(bits.size());
  const int64_t whole = by / 64;
  const int64_t part = by % 64;
  for (int64_t i = words - 1; i >= whole; --i) {
    uint64_t v = bits[static_cast<size_t>(i - whole)] << part;
    if (part > 0 && i - whole - 1 >= 0)
      v |= bits[static_cast<size_t>(i - whole - 1)] >> (64 - part);
    bits[static_cast<size_t>(i)] |= v;
  }
  const int64_t tail = width % 64;
  if (tail > 0) bits.back() &= (uint64_t{1} << tail) - 1;
}

}  // namespace

int64_t owedGuarantee(const GangSizes& sizes, int64_t guaranteed) {
  if (guaranteed <= 0) return 0;
  int64_t total = 0;
  for (const auto& [size, count] : sizes)
    if (size > 0 && size <= guaranteed) total += size * count;
  if (total <= guaranteed) return total;
  // Bit s set: some of the gangs add up to exactly s GPUs (s in [0, guaranteed]).
  const int64_t width = guaranteed + 1;
  std::vector<uint64_t> bits(static_cast<size_t>((width + 63) / 64), 0);
  bits[0] = 1;
  for (const auto& [size, count] : sizes) {
    if (size <= 0 || size > guaranteed) continue;
    // More than guaranteed / size copies can never be used together.
    int64_t left = std::min(count, guaranteed / size);
    for (int64_t take = 1; left > 0; take *= 2) {
      const int64_t k = std::min(take, left);
      orShifted(bits, size * k, width);
      left -= k;
    }
    if (bits[static_cast<size_t>(guaranteed / 64)] >> (guaranteed % 64) & 1) return guaranteed;
  }
  for (int64_t s = guaranteed; s > 0; --s)
    if (bits[static_cast<size_t>(s / 64)] >> (s % 64) & 1) return s;
  return 0;
}

}  // namespace troupe::simulator
