#pragma once

#include <chrono>

namespace troupe {

using Clock = std::chrono::system_clock;
using Time = Clock::time_point;
using Duration = std::chrono::nanoseconds;

// Where "now" comes from. Runtime code takes a TimeSource so that tests can drive time
// with FakeTimeSource; the engine in queueing/ never reads time at all (it comes in
// with the snapshot).
class TimeSource {
 public:
  virtual ~TimeSource() = default;
  virtual Time now() const = 0;
};

class SystemTimeSource final : public TimeSource {
 public:
  Time now() const override { return Clock::now(); }
};

class FakeTimeSource final : public TimeSource {
 public:
  explicit FakeTimeSource(Time start = Time{}) : now_(start) {}
  Time now() const override { return now_; }
  void advance(Duration d) { now_ += std::chrono::duration_cast<Clock::duration>(d); }
  void set(Time t) { now_ = t; }

 private:
  Time now_;
};

}  // namespace troupe
