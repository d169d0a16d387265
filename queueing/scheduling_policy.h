#pragma once

#include "queueing/cycle_run.h"
#include "queueing/engine_state.h"
#include "queueing/pending_observer.h"

namespace troupe::queueing {

// A scheduling policy: which pending gangs a cycle offers, in what order, under which of
// the rules, and what else the cycle does with what is left (docs/architecture.md,
// "Scheduling policies"). Implementations say how (FifoPolicy, FairSharePolicy), as the
// Mesos allocator's sorters are implementations of one Sorter; the cycle (cycle.h) runs
// the same steps around any of them and knows none.
//
// A policy decides through the CycleRun (admit, preempt, explain, grow: each decision
// applied to the state at once) and states its rules by calling the shared ones: the
// quota (queue_limits.h), placement (gang_placer.h), the preemption rules and search
// (preemption_rules.h, preemption.h), terminating capacity (CycleRun), reservations
// (reservations.h), elastic growth (elastic_growth.h), or Troupe's whole admission of one
// gang (gang_admission.h). Answers reused from earlier cycles are asked of the memo
// (run.memo(), answer_memo.h). Troupe's policies keep no answers of their own between
// cycles; a peer's policy keeps what that scheduler keeps (Kueue the quota it reserved,
// Tiresias the service each gang attained), derived only from the state and the times of
// the cycles, so the engine stays a deterministic function of its inputs.
class SchedulingPolicy {
 public:
  virtual ~SchedulingPolicy() = default;

  // The admission pass of one cycle, after indexes, fair shares, reservations and memos
  // are brought up to date and before explanations are reported: offers the pending
  // gangs in the policy's order and admits, preempts or explains each.
  virtual void admit(CycleRun& run) = 0;

  // The earliest time after run.now() at which a cycle would decide differently with no
  // delta (Decisions::next_wakeup), kNever when none is known.
  virtual Seconds nextWakeup(CycleRun& run) const = 0;

  // Told of every gang that starts or stops waiting, when the policy keeps an order of
  // its own over all pending gangs; null when the queues' pending lists serve it.
  virtual PendingObserver* pendingObserver() { return nullptr; }
};

}  // namespace troupe::queueing
