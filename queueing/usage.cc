#include "queueing/usage.h"

#include <cmath>

namespace troupe::queueing {

ResourceVector advanceUsage(const ResourceVector& usage, const ResourceVector& allocated,
                            Seconds elapsed, Seconds half_life) {
  if (half_life <= 0) return allocated;
  if (elapsed <= 0) return usage;
  const double keep = std::exp2(-static_cast<double>(elapsed) / static_cast<double>(half_life));
  ResourceVector out;
  for (std::size_t r = 0; r < kMaxResources; ++r) {
    const double a = static_cast<double>(allocated[r]);
    const double u = static_cast<double>(usage[r]);
    out[r] = static_cast<std::int64_t>(std::llround(a + (u - a) * keep));
  }
  return out;
}

}  // namespace troupe::queueing
