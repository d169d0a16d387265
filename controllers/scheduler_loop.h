#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/metrics_registry.h"
#include "controllers/cycle_planner.h"
#include "controllers/decayed_usage.h"
#include "controllers/gang_admission.h"
#include "controllers/object_json.h"
#include "controllers/pending_status_writer.h"
#include "controllers/queue_reconciler.h"

namespace troupe::state {
class StateStore;
}

// The scheduler loop: one cycle reads the caches, asks the engine what to do and carries
// it out through the API (docs/architecture.md). Its steps, in order:
//   1. gather     the caches' objects, with the controllers' own writes assumed
//   2. snapshot   the engine's view of them (controllers/cluster_snapshot.h)
//   3. sync       the engine brought to the snapshot (controllers/engine_sync.h)
//   4. schedule   the engine's decisions
//   5. plan       the decisions as API actions (controllers/action_plan.h)
//   6. preempt    victims annotated, accounted and deleted
//   7. bind       admitted gangs journaled and bound whole (controllers/gang_admission.h)
//   8. journal    the journal records closed with their accounting, in one commit
//   9. events     Events about the gangs
//   10. pending   waiting jobs' status.pending (controllers/pending_status_writer.h)
//   11. queues    Queues' status and metrics (controllers/queue_reconciler.h)
//   12. usage     decayed usage advanced, saved and mirrored (controllers/decayed_usage.h)
// Steps 2 to 5 are the CyclePlanner's, which the cycle benchmark runs too. Threads: the
// scheduling thread runs every call; the writes of a step go out several at once on the
// writer's helpers.
namespace troupe::controllers {

class ClusterWriter;
class CycleTimer;
class EventWriter;
class InformerCaches;

struct SchedulerLoopOptions {
  std::vector<std::string> topology_levels = {"troupe.dev/block", "troupe.dev/rack"};
  // How often decayed usage is mirrored into the Queues' troupe.dev/decayed-usage annotation.
  std::chrono::seconds usage_mirror_interval{60};
};

class SchedulerLoop {
 public:
  SchedulerLoop(InformerCaches& caches, ClusterWriter& writer, EventWriter& events,
                state::StateStore& state, MetricsRegistry& metrics, const TimeSource& time,
                SchedulerLoopOptions options);

  // A new leadership, before its first cycle: nothing kept from an earlier one is trusted
  // (facts, engine, pending-status schedule); decayed usage is loaded; every admission the
  // journal holds open is finished or rolled back (controllers/journal_recovery.h).
  void startLeading();
  // One cycle, the steps above.
  void runCycle();

  // When the engine last said a cycle would have something new to decide (seconds).
  std::optional<std::int64_t> nextWakeup() const { return next_wakeup_; }
  // Cycles run so far; any thread.
  std::int64_t cycles() const { return cycles_.load(); }

 private:
  std::int64_t now() const { return epochSeconds(time_.now()); }
  ApiObjects gather();
  // Step 6; returns the admissions to carry out.
  std::vector<const state::AdmissionRecord*> preempt(const PlannedCycle& cycle, std::int64_t t);
  // Step 8, and what follows each admission (metrics, the preempted-by mark cleared).
  void closeJournal(const PlannedCycle& cycle,
                    const std::vector<const state::AdmissionRecord*>& records,
                    const std::vector<AdmissionOutcome>& outcomes, std::int64_t t);
  // Step 9: the plan's events, those of bindings only for the gangs bound whole.
  void recordEvents(const std::vector<EventRecord>& events,
                    const std::vector<const state::AdmissionRecord*>& records,
                    const std::vector<AdmissionOutcome>& outcomes);
  // Journal records a failed close left open, finished or rolled back as a new leader would.
  void recoverJournal();
  void logCycle(const PlannedCycle& cycle, const ApiObjects& objects, std::size_t admitted,
                std::uint64_t pods_parsed, const CycleTimer& timer) const;

  InformerCaches& caches_;
  ClusterWriter& writer_;
  EventWriter& events_;
  state::StateStore& state_;
  MetricsRegistry& metrics_;
  const TimeSource& time_;
  const SchedulerLoopOptions options_;
  CyclePlanner planner_;
  PendingStatusWriter pending_;
  QueueReconciler queues_;
  DecayedUsage usage_;
  std::optional<std::int64_t> next_wakeup_;
  // Set when a cycle could not close its journal records: the next cycle recovers them.
  bool journal_left_open_ = false;
  std::atomic<std::int64_t> cycles_{0};
};

}  // namespace troupe::controllers
