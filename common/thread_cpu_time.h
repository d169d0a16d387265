#pragma once

// CPU time the calling thread has used so far, in milliseconds (CLOCK_THREAD_CPUTIME_ID).
// The difference of two readings is what the thread spent in between, which other work on
// a busy machine does not inflate as it does wall time: the scheduling cycle's step timings
// and the benchmarks read it.
namespace troupe {

double threadCpuMs();

}  // namespace troupe
