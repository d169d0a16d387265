#pragma once

#include <cstdint>
#include <set>
#include <vector>

#include "queueing/attained_service.h"
#include "queueing/scheduling_policy.h"

namespace troupe::queueing {

// The frame of the preemptive policies that rank every gang of the cluster by what it
// has run (attained_service.h) and run the best-ranked (ranked_preemption.h): Tiresias'
// discretized LAS and SRTF. A subclass says the rank key; lower keys run first, ties by
// submit time, then name. Waiting gangs are kept in order as they come and go
// (PendingObserver), their keys fixed while they wait unless the subclass re-keys one
// (rekey()); running gangs are ranked afresh each cycle.
class ServiceRankedPolicy : public SchedulingPolicy, public PendingObserver {
 public:
  explicit ServiceRankedPolicy(const EngineState& st) : st_(st), pending_(Order{this}) {}

  void admit(CycleRun& run) final;
  Seconds nextWakeup(CycleRun&) const final { return next_wakeup_; }
  PendingObserver* pendingObserver() final { return this; }
  void pendingAdded(GangId g) final;
  void pendingRemoved(GangId g) final;

 protected:
  // The rank key of gang g with record r as of the current cycle's time.
  virtual std::int64_t rankKey(GangId g, const AttainedService::Record& r) = 0;
  // At a cycle's start, after the service is counted: re-key the waiting gangs whose key
  // moved with time alone.
  virtual void beforeRanking(Seconds /*now*/) {}
  // At a cycle's end: the earliest later time at which some key moves with time alone
  // (kNever: none).
  virtual Seconds nextKeyChange(Seconds /*now*/) { return kNever; }

  // Gives waiting gang g its key again (rankKey()).
  void rekey(GangId g);
  // The running gangs, by id.
  std::vector<GangId> runningGangs() const;

  const EngineState& st_;
  AttainedService attained_;

 private:
  struct Order {
    const ServiceRankedPolicy* self;
    bool operator()(GangId a, GangId b) const { return self->before(a, b); }
  };
  bool before(GangId a, GangId b) const;

  // By GangId: the key a waiting gang is ordered by, and a running gang's as of this cycle.
  std::vector<std::int64_t> keys_;
  // Invariant: every waiting gang with a queue, by (keys_, submit time, name).
  std::set<GangId, Order> pending_;
  Seconds next_wakeup_ = kNever;
};

}  // namespace troupe::queueing
