#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace troupe::simulator {

// One job of a replayed trace: a gang asking for `gpus` GPUs that runs for `duration_s`
// seconds of work once started, submitted `submit_s` seconds after the trace began.
struct TraceJob {
  std::string id;
  int64_t submit_s = 0;
  int gpus = 0;
  int64_t duration_s = 0;
  // The trace's virtual cluster (team); the cluster file maps it to a queue.
  std::string queue;
};

// Parses the trace CSV of /work/shared/traces (header required, columns found by name:
// job_id, submit_time_s, num_gpus, duration_s, virtual_cluster; others are ignored).
// Jobs come back sorted by (submit_s, position in the file), a total order. Errors name
// the line and the column: "philly.csv:12:num_gpus: must be a whole number >= 0".
Result<std::vector<TraceJob>> parseTrace(std::string_view text, std::string_view source_name);

// Reads and parses the trace file at `path`.
Result<std::vector<TraceJob>> readTrace(const std::string& path);

// Keeps the jobs with from_s <= submit_s < to_s (either bound may be absent: pass
// INT64_MIN / INT64_MAX).
std::vector<TraceJob> selectWindow(const std::vector<TraceJob>& jobs, int64_t from_s, int64_t to_s);

}  // namespace troupe::simulator
