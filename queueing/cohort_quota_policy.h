#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "queueing/scheduling_policy.h"

namespace troupe::queueing {

// PolicyKind::Kueue: Kueue's quota model (docs/simulator.md, "The peers' policies"). Each
// leaf queue is a ClusterQueue whose nominal quota is its guarantee, and the leaves of one
// parent form a Cohort: a ClusterQueue may borrow what its cohort's other members leave
// unused (up to its limit when it has one: borrowingLimit = limit - guarantee), so the
// cohort holds at most the sum of its members' nominal quotas. Only the resources some
// queue guarantees are under quota.
//
// Admission reserves quota for the whole gang; only then are its pods placed, as
// kube-scheduler places each pod of an admitted workload on whatever node has room. So an
// admitted gang whose pods do not fit on the free nodes keeps its quota while it waits
// (NoPlacement, naming the quota it holds), and its quota keeps other gangs out however
// many GPUs are idle. The engine admits a gang only with all its pods at once, so this
// waiting gang binds no pod: what it wastes here is quota, not nodes (kube-scheduler would
// also bind the pods that fit and hold their GPUs idle).
//
// Each cycle: first the gangs holding quota are placed where they now fit, by priority,
// then by when their quota was reserved. Then admission in rounds, as Kueue's scheduling
// cycles repeat while the cluster stands still: each round takes the head of every
// ClusterQueue (its first waiting gang in priority, then submit order, not yet tried this
// cycle), and tries them, those that fit without borrowing first, then by priority and
// submit time. A head whose quota fits is admitted; one that does not may preempt
// (withinClusterQueue: LowerPriority, gangs of lower priority of its own ClusterQueue;
// reclaimWithinCohort: Any, gangs of any priority of cohort members above their nominal
// quota, when the head then stays within its own nominal quota), candidates from other
// ClusterQueues first, then lower priority, then the most recently admitted, keeping the
// fewest that make it fit. A head that still does not fit waits (QueueAtLimit) and the
// next gang of its ClusterQueue becomes its head (BestEffortFIFO). No reservations for
// starving gangs, no elastic growth, no clock.
class CohortQuotaPolicy final : public SchedulingPolicy, public PendingObserver {
 public:
  explicit CohortQuotaPolicy(const EngineState& st) : st_(st) {}

  void admit(CycleRun& run) override;
  Seconds nextWakeup(CycleRun&) const override { return kNever; }
  PendingObserver* pendingObserver() override { return this; }
  void pendingAdded(GangId) override {}
  // Placed (its pods run) or removed: its quota reservation ends.
  void pendingRemoved(GangId g) override;

 private:
  struct Quota;
  bool place(CycleRun& run, GangId g);
  bool tryToAdmit(CycleRun& run, Quota& quota, GangId g);
  bool preemptFor(CycleRun& run, Quota& quota, GangId g);
  void reserve(Quota& quota, GangId g);
  void unreserve(GangId g);

  const EngineState& st_;
  // Gangs holding quota while their pods wait, in the order they were admitted.
  std::vector<GangId> reserved_;
  // By GangId: whether it holds quota while waiting, and since when (a running gang:
  // its start).
  std::vector<std::uint8_t> holds_quota_;
  std::vector<Seconds> reserved_at_;
};

}  // namespace troupe::queueing
