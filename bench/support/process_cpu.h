#pragma once

#include <sys/types.h>

#include <optional>

namespace troupe::bench {

// CPU time (user and system, all threads) process `pid` has used so far, in seconds, read
// from its CPU-time clock (clock_getcpuclockid); nullopt when the process is gone. A
// difference of two readings is what the process spent in between, whether or not the
// machine was busy with others.
std::optional<double> processCpuSeconds(pid_t pid);

}  // namespace troupe::bench
