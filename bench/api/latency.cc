#include "bench/api/latency.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace troupe::bench {
namespace {

double rank(const std::vector<double>& sorted, double fraction) {
  auto index = static_cast<std::size_t>(std::ceil(fraction * static_cast<double>(sorted.size())));
  return sorted[std::clamp<std::size_t>(index, 1, sorted.size()) - 1];
}

}  // namespace

LatencySummary summarize(std::vector<double> samples_ms) {
  LatencySummary summary;
  if (samples_ms.empty()) return summary;
  std::sort(samples_ms.begin(), samples_ms.end());
  summary.count = samples_ms.size();
  summary.p50_ms = rank(samples_ms, 0.50);
  summary.p99_ms = rank(samples_ms, 0.99);
  summary.max_ms = samples_ms.back();
  return summary;
}

std::int64_t nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace troupe::bench
