#pragma once

#include "queueing/scheduling_policy.h"

namespace troupe::queueing {

// PolicyKind::YarnCapacity: Hadoop YARN's CapacityScheduler configured with every queue's
// maximum-capacity equal to its capacity, as Microsoft's Philly ran its virtual clusters
// (docs/simulator.md, "The peers' policies"). Each queue is a static partition of the
// cluster of its guaranteed size: a gang is admitted only while its queue and every
// ancestor stay within their guarantees, so GPUs another queue leaves idle are never
// borrowed. A partition is a quota on a shared pool of nodes, not a set of nodes: YARN's
// queues are logical shares of the cluster. Only the resources some queue guarantees are
// partitioned. Within a leaf queue, gangs in admission order (priority, submit time,
// name), all pods at once; the first that does not fit blocks its queue
// (BlockedByQueueHead), as YARN holds capacity back for the application at the head. No
// preemption, no reservations, no elastic growth, no clock.
class StaticPartitionPolicy final : public SchedulingPolicy {
 public:
  void admit(CycleRun& run) override;
  Seconds nextWakeup(CycleRun&) const override { return kNever; }
};

}  // namespace troupe::queueing
