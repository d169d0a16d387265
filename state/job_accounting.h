#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "state/state_database.h"

namespace troupe::state {

// What one job has cost and waited, across admissions, preemptions and restarts.
struct JobAccount {
  std::string job;  // "namespace/name"
  std::string queue;
  std::int64_t submit_time = 0;
  std::optional<std::int64_t> first_admit_time;
  std::optional<std::int64_t> running_since;  // set while the job holds GPUs
  std::int64_t running_gpus = 0;
  // GPU-seconds of closed run intervals; gpuSecondsAt() adds the open one.
  std::int64_t gpu_seconds = 0;
  // Submission to first admission.
  std::int64_t wait_seconds = 0;
  std::int64_t admissions = 0;
  std::int64_t preemptions = 0;
  std::int64_t restarts = 0;

  std::int64_t gpuSecondsAt(std::int64_t now) const {
    return gpu_seconds + (running_since ? (now - *running_since) * running_gpus : 0);
  }
  friend bool operator==(const JobAccount&, const JobAccount&) = default;
};

enum class StopReason { Finished, Preempted, Restarted, Suspended };

// Per-job accounting, kept only here (the API holds no history of a job's runs).
// Every call is idempotent where the runtime may repeat it after a crash: submitting a
// known job keeps its first submit time, stopping a job that is not running changes
// nothing but the counters of the reason.
class JobAccounting {
 public:
  explicit JobAccounting(StateDatabase& db) : db_(&db) {}

  Status submitted(const std::string& job, const std::string& queue, std::int64_t at);
  // The job starts holding `gpus` GPUs. A job already running is left as it is.
  Status started(const std::string& job, std::int64_t at, std::int64_t gpus);
  // An elastic job now holds `gpus` GPUs; the interval so far is closed at the old size.
  Status resized(const std::string& job, std::int64_t at, std::int64_t gpus);
  Status stopped(const std::string& job, std::int64_t at, StopReason reason);
  Status forget(const std::string& job);
  Result<std::optional<JobAccount>> find(const std::string& job) const;
  Result<std::vector<JobAccount>> all() const;

 private:
  StateDatabase* db_;
};

}  // namespace troupe::state
