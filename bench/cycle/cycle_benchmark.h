#pragma once

#include <cstddef>
#include <string>
#include <vector>

// The scheduler loop's cycle without the API: its own planning steps
// (controllers/cycle_planner.h) on objects held in memory: the snapshot built from them (as
// the loop builds it from its informer caches, with the facts of unchanged objects kept
// between cycles), the engine kept from the previous cycle brought to it (EngineSync), one
// schedule() and the action plan.
//
// The cluster is the one `troupe bench scheduler` leaves behind when it times a reclaim:
// every object bound and running (single-pod CPU jobs, gangs of CPU pods, and one 8-GPU
// borrowing pod on every node), and in each timed cycle one new 1-GPU job in a queue
// guaranteed 8 GPUs, which the engine admits by preempting one borrowing pod. Each cycle
// sees the previous cycle's objects but for that job, as the operator's cycles do while
// nothing else changes.
//
// Then one more cycle, the drain: a backlog of single-pod CPU jobs, pending, appears at
// once, as when a queue's limit is lifted, and the cycle must admit every one of them (the
// cycle behind the backlog phase of `troupe bench scheduler`).
namespace troupe::bench {

struct CycleBenchShape {
  int nodes = 5'000;
  int single_jobs = 20'000;  // single-pod jobs of 1 CPU, running
  int gangs = 100;           // gangs of `gang_size` CPU pods, running
  int gang_size = 100;
  int cycles = 20;       // timed cycles, after one untimed cycle that fills the facts
  int backlog = 20'000;  // pending single-pod CPU jobs the drain cycle admits
};

// The drain cycle's steps, this thread's CPU milliseconds.
struct DrainCycle {
  double snapshot_ms = 0, load_ms = 0, schedule_ms = 0, plan_ms = 0, total_ms = 0;
  std::size_t admitted = 0;  // gangs the plan binds
};

// Milliseconds of this thread's CPU time per step, one sample per timed cycle.
struct CycleBenchResult {
  CycleBenchShape shape;
  int pods = 0;
  int gangs = 0;
  std::vector<double> snapshot_ms;  // buildClusterSnapshot
  std::vector<double> load_ms;      // EngineSync::sync (the first cycle loads the engine)
  std::vector<double> schedule_ms;  // Engine::schedule
  std::vector<double> plan_ms;      // planActions
  std::vector<double> total_ms;
  int cycles_that_reclaimed = 0;  // cycles whose plan bound the new job after one preemption
  std::size_t gangs_resent = 0;   // gangs the timed cycles' syncs sent to the engine
  std::size_t refused = 0;        // objects the engine refused (none, in this cluster)
  DrainCycle drain;
  long long peak_rss_bytes = 0;
};

CycleBenchResult runCycleBench(const CycleBenchShape& shape);

// A Markdown report of `result`.
std::string describe(const CycleBenchResult& result);

}  // namespace troupe::bench
