#include "bench/support/process_cpu.h"

#include <time.h>

namespace troupe::bench {

std::optional<double> processCpuSeconds(pid_t pid) {
  // The process's CPU-time clock, to the nanosecond. /proc/<pid>/stat counts in clock ticks
  // (10 ms), too coarse for a short phase of a small run.
  clockid_t clock;
  if (::clock_getcpuclockid(pid, &clock) != 0) return std::nullopt;
  timespec used{};
  if (::clock_gettime(clock, &used) != 0) return std::nullopt;
  return static_cast<double>(used.tv_sec) + static_cast<double>(used.tv_nsec) / 1e9;
}

}  // namespace troupe::bench
