#include "queueing/shortest_remaining_policy.h"

#include <algorithm>

namespace troupe::queueing {

std::int64_t ShortestRemainingPolicy::rankKey(GangId g, const AttainedService::Record& r) {
  const auto& estimate = st_.gangs[g].spec.runtime_estimate;
  if (!estimate) return kNever;
  return std::max<Seconds>(0, *estimate - r.run_seconds);
}

}  // namespace troupe::queueing
