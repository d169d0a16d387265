#pragma once

#include <sys/types.h>

#include <cstdint>

namespace troupe::bench {

// Bytes the C heap has handed out and not taken back (jemalloc's stats.allocated where the
// executable links jemalloc, else glibc's mallinfo2: small blocks plus mmapped ones). A
// difference of two readings is what a piece of code keeps allocated.
// Returns 0 where the allocator does not report it (e.g. under AddressSanitizer).
int64_t heapBytesInUse();

// The process's peak resident set size so far (VmHWM), in bytes; 0 if unknown.
int64_t peakRssBytes();

// Of process `pid` (another process: a scheduler under measurement), from /proc: its
// resident set size now (VmRSS) and its peak (VmHWM), in bytes; 0 if unknown (gone).
int64_t rssBytesOf(pid_t pid);
int64_t peakRssBytesOf(pid_t pid);

}  // namespace troupe::bench
