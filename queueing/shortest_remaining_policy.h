#pragma once

#include "queueing/service_ranked_policy.h"

namespace troupe::queueing {

// PolicyKind::Srtf: preemptive shortest remaining time first over the whole cluster, with
// every gang's run time known (GangSpec::runtime_estimate, which a trace replay sets to
// the job's true duration): the gang with the least time left runs first, and a running
// gang is evicted for waiting gangs with less left when they need its GPUs
// (ranked_preemption.h). Time left = the estimate minus the time the gang has run, at any
// size; a gang without an estimate ranks after every gang with one. Queues, guarantees
// and limits are not consulted. No real scheduler knows run times, so this is a bound to
// measure against (docs/simulator.md), not a policy to run.
class ShortestRemainingPolicy final : public ServiceRankedPolicy {
 public:
  using ServiceRankedPolicy::ServiceRankedPolicy;

 protected:
  std::int64_t rankKey(GangId g, const AttainedService::Record& r) override;
};

}  // namespace troupe::queueing
