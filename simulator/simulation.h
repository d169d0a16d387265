#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "queueing/policy.h"
#include "simulator/cluster_spec.h"
#include "simulator/engine_input.h"
#include "simulator/job_outcome.h"
#include "simulator/trace.h"

namespace troupe::simulator {

struct SimulationOptions {
  queueing::PolicyKind policy = queueing::PolicyKind::Troupe;
  // A preempted job resumes from its last checkpoint, taken every this many seconds of
  // run time since it last started; 0: no checkpoints, a preempted job starts over.
  int64_t checkpoint_interval_s = 1800;
  GangOptions gangs;
  // The submission window the trace was cut to (--from, --to), for the offered load;
  // unset: from the first to the last submission.
  std::optional<int64_t> window_begin_s;
  std::optional<int64_t> window_end_s;
  // Where the progress bar goes (drawn only if it is a terminal); nullptr: nowhere.
  FILE* progress = nullptr;
};

struct SimulationResult {
  std::vector<JobOutcome> jobs;      // in trace order (submit time, then file order)
  std::vector<RunSegment> segments;  // in the order they ended
  nlohmann::json summary;            // what summary.json holds (summary.h)
  int64_t skipped_jobs = 0;          // 0-GPU jobs and jobs larger than the cluster
  int64_t cycles = 0;
};

// Replays `jobs` (sorted by submit time, as parseTrace returns them) through the engine
// on simulated time until every job has finished or nothing more can happen. Errors:
// a job naming a queue that is not a leaf of the cluster file when there is no default
// queue, or a cluster the engine rejects.
Result<SimulationResult> simulate(const ClusterSpec& cluster, const std::vector<TraceJob>& jobs,
                                  const SimulationOptions& options);

}  // namespace troupe::simulator
