#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <random>

// Exponential backoff with jitter for retries: attempt n (0-based) waits a random time in
// [d/2, d] where d = min(max, base * 2^n) ("equal jitter"), so clients that failed together
// do not come back together. A server's Retry-After wins when it asks for longer.
namespace troupe::kube {

class Backoff {
 public:
  Backoff(std::chrono::milliseconds base, std::chrono::milliseconds max, std::uint64_t seed);

  std::chrono::milliseconds delay(int attempt,
                                  std::optional<std::chrono::seconds> retry_after = std::nullopt);

 private:
  std::chrono::milliseconds base_;
  std::chrono::milliseconds max_;
  std::mt19937_64 rng_;
};

}  // namespace troupe::kube
