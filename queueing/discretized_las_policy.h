#pragma once

#include <set>
#include <utility>
#include <vector>

#include "queueing/service_ranked_policy.h"

namespace troupe::queueing {

// PolicyKind::Tiresias: the discretized two-dimensional least-attained-service scheduler
// of Tiresias (Gu et al., NSDI'19), which knows nothing of run times. A gang's attained
// service is the GPUs it held times the seconds it held them; Policy::tiresias'
// thresholds cut it into priority queues: every gang starts in the first, and is demoted
// to the next as its service passes each threshold. Gangs rank by queue, then by submit
// time (first come, first served within a queue), and the best-ranked run, evicting
// running gangs of later queues when they need the GPUs (ranked_preemption.h). Against
// starvation, a waiting gang that has waited promote_knob times as long as it last ran
// is promoted to the first queue; its service so far is disregarded from then on. Queues,
// guarantees and limits of the queue tree are not consulted: Tiresias schedules one pool.
class DiscretizedLasPolicy final : public ServiceRankedPolicy {
 public:
  using ServiceRankedPolicy::ServiceRankedPolicy;

 protected:
  std::int64_t rankKey(GangId g, const AttainedService::Record& r) override;
  void beforeRanking(Seconds now) override;
  Seconds nextKeyChange(Seconds now) override;

 private:
  // The queue of a gang with `service` GPU-seconds counted: 0 is the first.
  std::int64_t queueOf(double service) const;
  // Whether the promotion of g scheduled for `at` still stands: g waits since.
  bool stillWaits(Seconds at, GangId g) const;

  // Waiting gangs in a later queue, by the time they are promoted.
  std::set<std::pair<Seconds, GangId>> promotions_;
  // By GangId: the promotion time last scheduled for it (stale entries are skipped).
  std::vector<Seconds> promote_at_;
};

}  // namespace troupe::queueing
