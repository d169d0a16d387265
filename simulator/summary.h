#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "simulator/cluster_spec.h"
#include "simulator/gpu_sharing_tracker.h"
#include "simulator/idle_causes.h"
#include "simulator/job_outcome.h"
#include "simulator/reservation_tracker.h"
#include "simulator/share_tracker.h"

namespace troupe::simulator {

// Job-completion-time and queueing-delay statistics over a set of finished jobs.
// Percentiles are nearest-rank; every figure is 0 for an empty set.
struct LatencyStats {
  size_t jobs = 0;
  double avg_jct_s = 0;
  double p50_jct_s = 0;
  double p95_jct_s = 0;
  double p99_jct_s = 0;
  double avg_queue_delay_s = 0;
  double p99_queue_delay_s = 0;

  nlohmann::json toJson() const;
};

LatencyStats latencyStats(const std::vector<const JobOutcome*>& jobs);

// Nearest-rank percentile (p in [0, 100]) of `values`, which it sorts; 0 when empty.
double percentile(std::vector<double>& values, double p);

// Jobs of at least this many GPUs are the "big" ones the summary follows apart.
inline constexpr int kBigJobGpus = 32;

// Everything summary.json holds; docs/simulator.md defines each key.
struct SummaryInputs {
  std::string policy;
  const std::vector<JobOutcome>* jobs = nullptr;
  const std::vector<RunSegment>* segments = nullptr;
  const ShareTracker* shares = nullptr;
  const IdleCauseTracker* idle = nullptr;
  const ReservationTracker* reservations = nullptr;
  // The submission window, for the offered load (unset: first to last submission).
  std::optional<int64_t> window_begin_s;
  std::optional<int64_t> window_end_s;
  std::vector<std::string> queue_names;  // indexed like the tracker's queues
  std::vector<int64_t> queue_guarantees;
  int64_t cluster_gpus = 0;
  int64_t checkpoint_interval_s = 0;
  int64_t skipped_jobs = 0;    // trace jobs the replay left out (see docs)
  int64_t never_ran_jobs = 0;  // of those, the ones the trace gives no run time
  // Shared GPUs over time; nullptr: not reported.
  const GpuSharingTracker* sharing = nullptr;
  // The cluster replayed (segments' node indexes index its nodes), for the GPU models;
  // nullptr: not reported.
  const ClusterSpec* cluster = nullptr;
  double wall_seconds = 0;
  int64_t cycles = 0;
};

nlohmann::json summarize(const SummaryInputs& in);

}  // namespace troupe::simulator
