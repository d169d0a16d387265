#pragma once

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>
#include <vector>

#include "common/result.h"
#include "simulator/job_outcome.h"

namespace troupe::simulator {

// The columns of jobs.csv, in order.
inline constexpr const char* kJobsCsvHeader =
    "id,queue,gpus,pods,submit_s,start_s,end_s,duration_s,jct_s,queue_delay_s,preemptions,"
    "resizes,lost_work_s,reserved_s,gpu_milli";

// Writes one CSV line per job (header first). Unfinished jobs have empty start/end/jct.
void writeJobsCsv(std::ostream& out, const std::vector<JobOutcome>& jobs);

// Creates `dir` if needed and writes dir/summary.json and dir/jobs.csv.
Status writeReport(const std::string& dir, const nlohmann::json& summary,
                   const std::vector<JobOutcome>& jobs);

}  // namespace troupe::simulator
