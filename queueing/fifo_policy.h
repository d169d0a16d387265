#pragma once

#include <set>

#include "queueing/scheduling_policy.h"

namespace troupe::queueing {

// PolicyKind::Fifo, the baseline: every pending gang of every queue in one order, by
// submit time then name; the first that cannot be admitted blocks all behind it
// (BlockedByQueueHead). Quota and placement as for any admission (the queue's limits, all
// pods at once, an elastic gang at its full size when it fits); no preemption, no
// waiting for terminating pods, no backfill or reservations, no elastic growth, and so no
// clock: it never asks for a wake-up.
class FifoPolicy final : public SchedulingPolicy, public PendingObserver {
 public:
  explicit FifoPolicy(const EngineState& st) : order_(SubmitOrder{&st.gangs}) {}

  void admit(CycleRun& run) override;
  Seconds nextWakeup(CycleRun&) const override { return kNever; }
  PendingObserver* pendingObserver() override { return this; }

  void pendingAdded(GangId g) override { order_.insert(g); }
  void pendingRemoved(GangId g) override { order_.erase(g); }

 private:
  // Submit time, then name.
  struct SubmitOrder {
    const std::vector<GangState>* gangs;
    bool operator()(GangId a, GangId b) const;
  };
  // Invariant: every pending gang with a queue (PendingObserver).
  std::set<GangId, SubmitOrder> order_;
};

}  // namespace troupe::queueing
