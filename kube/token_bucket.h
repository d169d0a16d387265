#pragma once

#include <chrono>
#include <mutex>

// Client-side rate limiting, as client-go's flowcontrol: a bucket holding at most `burst`
// tokens, refilled at `qps` tokens a second; each request takes one. Thread-safe.
namespace troupe::kube {

class TokenBucket {
 public:
  using SteadyTime = std::chrono::steady_clock::time_point;

  // qps <= 0 disables limiting.
  TokenBucket(double qps, int burst);

  // Takes a token at `now` and returns how long the caller must wait before using it
  // (zero when one was available). Reservations queue: the tokens of waiting callers are
  // already spent, so concurrent callers are spaced 1/qps apart.
  std::chrono::nanoseconds reserve(SteadyTime now);
  // reserve() at steady_clock::now(), then sleeps the wait.
  void acquire();

 private:
  const double qps_;
  const double burst_;
  std::mutex mu_;
  double tokens_;      // guarded by mu_; may go negative (reserved by waiting callers)
  SteadyTime last_{};  // guarded by mu_; when `tokens_` was last brought up to date
  bool started_ = false;
};

}  // namespace troupe::kube
