#include "kube/backoff.h"

#include <algorithm>

namespace troupe::kube {

Backoff::Backoff(std::chrono::milliseconds base, std::chrono::milliseconds max, std::uint64_t seed)
    : base_(base), max_(std::max(base, max)), rng_(seed) {}

std::chrono::milliseconds Backoff::delay(int attempt,
                                         std::optional<std::chrono::seconds> retry_after) {
  long long ceiling = base_.count();
  for (int i = 0; i < attempt && ceiling < max_.count(); ++i) ceiling *= 2;
  ceiling = std::min<long long>(ceiling, max_.count());
  std::uniform_int_distribution<long long> jitter(ceiling / 2, ceiling);
  std::chrono::milliseconds wait{jitter(rng_)};
  if (retry_after && *retry_after > wait) {
    wait = std::chrono::duration_cast<std::chrono::milliseconds>(*retry_after);
  }
  return wait;
}

}  // namespace troupe::kube
