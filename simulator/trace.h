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
  // The trace's virtual cluster (team); the cluster file maps it to a queue. Empty when
  // the trace has no teams: the job goes to the cluster's default queue.
  std::string queue;
  // A fraction of its one GPU in thousandths, in (0, 1000), for a job of gpus == 1 that
  // shares its GPU; 0: whole GPUs.
  int gpu_milli = 0;
  // CPU (thousandths of a core) and memory its pods ask in all; 0 when the trace says not.
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  // The GPU models it accepts (the cluster's node GPU types); empty: any.
  std::vector<std::string> gpu_types;
  std::string qos_class;
  // The trace gives no run time because the job never ran where the trace was recorded
  // (duration_s is 0 then): the replay leaves it out.
  bool never_ran = false;

  // GPUs asked, in thousandths.
  int64_t gpuMilli() const { return gpu_milli > 0 ? gpu_milli : int64_t{gpus} * 1000; }
};

// The column sets a trace CSV may have, told apart by its header.
enum class TraceShape {
  // job_id, submit_time_s, num_gpus, duration_s, virtual_cluster: jobs of whole GPUs
  // in teams (Philly 2017).
  Teams,
  // job_id, submit_time_s, num_gpus, gpu_milli, cpu_milli, memory_mib, duration_s
  // (empty: never ran), qos_class, optionally gpu_spec: pods with GPU fractions, CPU and
  // memory, and no teams (Alibaba 2023). A header with gpu_milli has this shape.
  Sharing,
};

// Parses a trace CSV of either shape (header required, columns found by name, others
// ignored). Jobs come back sorted by (submit_s, position in the file), a total order.
// Errors name the line and the column: "philly.csv:12:num_gpus: must be a whole number
// >= 0".
Result<std::vector<TraceJob>> parseTrace(std::string_view text, std::string_view source_name);

// Reads and parses the trace file at `path`.
Result<std::vector<TraceJob>> readTrace(const std::string& path);

// Keeps the jobs with from_s <= submit_s < to_s (either bound may be absent: pass
// INT64_MIN / INT64_MAX).
std::vector<TraceJob> selectWindow(const std::vector<TraceJob>& jobs, int64_t from_s, int64_t to_s);

}  // namespace troupe::simulator
