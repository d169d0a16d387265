#include "simulator/report_writer.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>

namespace troupe::simulator {

void writeJobsCsv(std::ostream& out, const std::vector<JobOutcome>& jobs) {
  out << kJobsCsvHeader << '\n';
  for (const auto& job : jobs) {
    out << job.id << ',' << job.queue << ',' << job.gpus << ',' << job.pods << ',' << job.submit_s
        << ',';
    if (job.start_s >= 0) out << job.start_s;
    out << ',';
    if (job.finished()) out << job.end_s;
    out << ',' << job.duration_s << ',';
    if (job.finished()) out << job.jctSeconds();
    out << ',';
    if (job.start_s >= 0) out << job.queueDelaySeconds();
    out << ',' << job.preemptions << ',' << job.resizes << ',' << job.lost_work_s << ','
        << job.reserved_s << ',' << job.gpu_milli << '\n';
  }
}

Status writeReport(const std::string& dir, const nlohmann::json& summary,
                   const std::vector<JobOutcome>& jobs) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return makeError(ErrorCode::Internal, "--out",
                     fmt::format("cannot create directory '{}': {}", dir, ec.message()));
  }
  {
    std::ofstream out(dir + "/summary.json");
    out << summary.dump(2) << '\n';
    if (!out) {
      return makeError(ErrorCode::Internal, "--out",
                       fmt::format("cannot write '{}/summary.json'", dir));
    }
  }
  std::ofstream out(dir + "/jobs.csv");
  writeJobsCsv(out, jobs);
  if (!out) {
    return makeError(ErrorCode::Internal, "--out", fmt::format("cannot write '{}/jobs.csv'", dir));
  }
  return {};
}

}  // namespace troupe::simulator
