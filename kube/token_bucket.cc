#include "kube/token_bucket.h"

#include <algorithm>
#include <thread>

namespace troupe::kube {

TokenBucket::TokenBucket(double qps, int burst)
    : qps_(qps), burst_(std::max(1, burst)), tokens_(std::max(1, burst)) {}

std::chrono::nanoseconds TokenBucket::reserve(SteadyTime now) {
  if (qps_ <= 0) return std::chrono::nanoseconds{0};
  std::lock_guard lock(mu_);
  if (!started_) {
    started_ = true;
    last_ = now;
  }
  if (now > last_) {
    const double elapsed = std::chrono::duration<double>(now - last_).count();
    tokens_ = std::min(burst_, tokens_ + elapsed * qps_);
    last_ = now;
  }
  tokens_ -= 1;
  if (tokens_ >= 0) return std::chrono::nanoseconds{0};
  // -tokens_ tokens are owed; they arrive at qps_ a second.
  return std::chrono::nanoseconds(static_cast<long long>(-tokens_ / qps_ * 1e9));
}

void TokenBucket::acquire() {
  const auto wait = reserve(std::chrono::steady_clock::now());
  if (wait.count() > 0) std::this_thread::sleep_for(wait);
}

}  // namespace troupe::kube
