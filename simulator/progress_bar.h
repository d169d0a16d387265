#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>

namespace troupe::simulator {

// A one-line progress bar redrawn in place on a terminal. It draws only when `out` is
// a TTY (so logs and pipes stay clean) and at most ten times a second.
class ProgressBar {
 public:
  // `total` jobs to finish; `stream` is usually stderr.
  ProgressBar(int64_t total, FILE* stream);
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  void update(int64_t done, int64_t sim_time_s, int64_t pending, int64_t running);
  // Clears the line.
  void finish();

 private:
  int64_t total_;
  FILE* stream_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point started_;
  std::chrono::steady_clock::time_point last_draw_;
};

}  // namespace troupe::simulator
