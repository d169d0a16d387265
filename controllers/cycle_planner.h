#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "controllers/action_plan.h"
#include "controllers/cluster_snapshot.h"
#include "controllers/engine_sync.h"
#include "queueing/decisions.h"
#include "queueing/policy.h"

// The scheduler loop's steps that need no API: the snapshot of the objects, the engine
// brought to it, one schedule() and the action plan (controllers/scheduler_loop.h runs
// them, then carries the plan out). What makes a cycle cheap lives here and is kept from
// one cycle to the next: the facts read of each object version and the last snapshot
// (SnapshotFacts), and the engine (EngineSync). The cycle benchmark (bench/cycle) runs these
// same steps on objects held in memory. Not thread-safe: one scheduling thread owns it.
namespace troupe::controllers {

class CycleTimer;

struct PlannedCycle {
  ClusterSnapshot cluster;
  std::vector<Problem> refused;  // objects the engine refused (EngineSync::sync)
  queueing::Decisions decisions;
  ActionPlan plan;
};

class CyclePlanner {
 public:
  explicit CyclePlanner(queueing::Policy policy);

  // The steps, each timed on `timer`: "snapshot" (buildClusterSnapshot with the planner's
  // facts), "sync", "schedule" (at options.now, as cycle number `cycle`) and "plan".
  PlannedCycle plan(const ApiObjects& objects, SnapshotOptions options, std::int64_t cycle,
                    CycleTimer& timer);
  // Hands back a cycle's snapshot once its user is done with it: the next snapshot moves
  // what did not change out of it (controllers/cluster_snapshot.h, recycle).
  void recycle(ClusterSnapshot&& cluster);
  // Forgets every object read and starts a fresh engine: a new leader trusts nothing it
  // kept.
  void reset();

  EngineSync& engine() { return *engine_; }
  const SyncStats& lastSync() const { return engine_->lastSync(); }
  const SnapshotFacts& facts() const { return facts_; }

 private:
  queueing::Policy policy_;
  SnapshotFacts facts_;
  std::optional<EngineSync> engine_;
};

}  // namespace troupe::controllers
