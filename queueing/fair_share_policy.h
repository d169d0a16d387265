#pragma once

#include "queueing/scheduling_policy.h"

namespace troupe::queueing {

// PolicyKind::Troupe (docs/scheduling.md): leaf queues in fair-share order (queue_turn.h),
// the first offering its next gang in admission order (priority, submit time, name);
// after an admission the queue is placed again by its new share (DRF interleaving). Each
// gang is tried under Troupe's admission rules (gang_admission.h: quota, placement,
// terminating pods, loop-free preemption, reservations); with Policy::backfill off a
// queue is strictly ordered, nothing passing its first waiting gang. Then, when nobody
// waits for capacity, elastic gangs grow (Policy::elastic_growth).
//
// What the memo knows spares work without changing a decision: a queue none of whose
// inputs moved since its last examination is skipped (Policy::skip_unchanged_queues), and
// a gang that asks what an earlier gang of the same stretch of the walk asked is given
// that gang's answer (Policy::share_walk_answers).
class FairSharePolicy final : public SchedulingPolicy {
 public:
  void admit(CycleRun& run) override;
  Seconds nextWakeup(CycleRun& run) const override;

 private:
  void walkQueues(CycleRun& run) const;
};

}  // namespace troupe::queueing
