#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

// Summaries of measured latencies, in milliseconds.
namespace troupe::bench {

struct LatencySummary {
  std::size_t count = 0;
  double p50_ms = 0;
  double p99_ms = 0;
  double max_ms = 0;
};

// Nearest-rank percentiles of `samples_ms` (any order; empty gives zeros).
LatencySummary summarize(std::vector<double> samples_ms);

// The steady clock's reading in nanoseconds: what latencies are measured between.
std::int64_t nowNs();

}  // namespace troupe::bench
