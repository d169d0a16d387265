#include "simulator/trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <numeric>
#include <sstream>
#include <tuple>
#include <unordered_set>

#include "simulator/csv_lines.h"

namespace troupe::simulator {
namespace {

// Where each known column is in the header, -1 when absent.
struct TraceColumns {
  int id = -1, submit = -1, gpus = -1, duration = -1, queue = -1;
  int gpu_milli = -1, cpu_milli = -1, memory_mib = -1, qos = -1, gpu_spec = -1;
  TraceShape shape = TraceShape::Teams;

  // Reads the header; the name of the first required column missing, or "".
  std::string read(const CsvLine& header) {
    for (auto [col, name] :
         {std::pair{&id, "job_id"}, std::pair{&submit, "submit_time_s"},
          std::pair{&gpus, "num_gpus"}, std::pair{&duration, "duration_s"},
          std::pair{&queue, "virtual_cluster"}, std::pair{&gpu_milli, "gpu_milli"},
          std::pair{&cpu_milli, "cpu_milli"}, std::pair{&memory_mib, "memory_mib"},
          std::pair{&qos, "qos_class"}, std::pair{&gpu_spec, "gpu_spec"}}) {
      *col = csvColumn(header, name);
    }
    shape = gpu_milli >= 0 ? TraceShape::Sharing : TraceShape::Teams;
    std::vector<std::pair<int, const char*>> required = {
        {id, "job_id"}, {submit, "submit_time_s"}, {gpus, "num_gpus"}, {duration, "duration_s"}};
    if (shape == TraceShape::Teams) {
      required.emplace_back(queue, "virtual_cluster");
    } else {
      required.insert(required.end(),
                      {{cpu_milli, "cpu_milli"}, {memory_mib, "memory_mib"}, {qos, "qos_class"}});
    }
    for (auto [col, name] : required)
      if (col < 0) return name;
    return "";
  }
};

// The GPU models of a gpu_spec cell: names separated by '|', empty for any.
std::vector<std::string> gpuTypesOf(std::string_view cell) {
  std::vector<std::string> types;
  while (!cell.empty()) {
    const size_t bar = cell.find('|');
    auto name = cell.substr(0, bar);
    if (!name.empty()) types.emplace_back(name);
    if (bar == std::string_view::npos) break;
    cell.remove_prefix(bar + 1);
  }
  std::sort(types.begin(), types.end());
  types.erase(std::unique(types.begin(), types.end()), types.end());
  return types;
}

}  // namespace

Result<std::vector<TraceJob>> parseTrace(std::string_view text, std::string_view source_name) {
  auto lines = csvLines(text, source_name);
  if (!lines) return lines.error();
  if (lines->empty()) {
    return makeError(ErrorCode::Invalid, std::string(source_name), "the trace has no header line");
  }
  TraceColumns col;
  if (auto missing = col.read(lines->front()); !missing.empty()) {
    return makeError(ErrorCode::Invalid, csvWhere(source_name, lines->front().number, missing),
                     "required column is missing from the header line");
  }
  std::vector<TraceJob> jobs;
  std::unordered_set<std::string> seen_ids;
  for (size_t i = 1; i < lines->size(); ++i) {
    const size_t line_no = (*lines)[i].number;
    const auto& fields = (*lines)[i].fields;
    auto at = [&](std::string_view column) { return csvWhere(source_name, line_no, column); };
    TraceJob job;
    job.id = std::string(fields[col.id]);
    if (job.id.empty()) {
      return makeError(ErrorCode::Invalid, at("job_id"), "must not be empty");
    }
    if (!seen_ids.insert(job.id).second) {
      return makeError(ErrorCode::Invalid, at("job_id"),
                       fmt::format("duplicate job id '{}'", job.id));
    }
    int64_t gpus = 0;
    if (!parseWholeNumber(fields[col.submit], job.submit_s) || job.submit_s < 0) {
      return makeError(ErrorCode::Invalid, at("submit_time_s"),
                       fmt::format("must be a whole number >= 0, got '{}'", fields[col.submit]));
    }
    if (!parseWholeNumber(fields[col.gpus], gpus) || gpus < 0 || gpus > 1'000'000) {
      return makeError(
          ErrorCode::Invalid, at("num_gpus"),
          fmt::format("must be a whole number in [0, 1000000], got '{}'", fields[col.gpus]));
    }
    job.gpus = static_cast<int>(gpus);
    const bool sharing = col.shape == TraceShape::Sharing;
    // A pod that was never scheduled has no run time in the sharing shape.
    if (sharing && fields[col.duration].empty()) {
      job.never_ran = true;
    } else if (!parseWholeNumber(fields[col.duration], job.duration_s) || job.duration_s < 0) {
      return makeError(ErrorCode::Invalid, at("duration_s"),
                       fmt::format("must be a whole number >= 0{}, got '{}'",
                                   sharing ? " or empty" : "", fields[col.duration]));
    }
    if (col.queue >= 0) job.queue = std::string(fields[col.queue]);
    if (!sharing && job.queue.empty()) {
      return makeError(ErrorCode::Invalid, at("virtual_cluster"), "must not be empty");
    }
    if (sharing) {
      int64_t milli = 0;
      // 0 GPUs: 0; one GPU: its share, 1000 for all of it; more: 1000 (whole GPUs).
      const int64_t lo = job.gpus == 0 ? 0 : job.gpus == 1 ? 1 : 1000;
      const int64_t hi = job.gpus == 0 ? 0 : 1000;
      if (!parseWholeNumber(fields[col.gpu_milli], milli) || milli < lo || milli > hi) {
        return makeError(ErrorCode::Invalid, at("gpu_milli"),
                         fmt::format("must be a whole number in [{}, {}] for {} GPUs, got '{}'", lo,
                                     hi, job.gpus, fields[col.gpu_milli]));
      }
      job.gpu_milli = milli < 1000 ? static_cast<int>(milli) : 0;
      for (auto [column, out, name] : {std::tuple{col.cpu_milli, &job.cpu_milli, "cpu_milli"},
                                       std::tuple{col.memory_mib, &job.memory_mib, "memory_mib"}}) {
        if (!parseWholeNumber(fields[column], *out) || *out < 0 || *out > (int64_t{1} << 40)) {
          return makeError(ErrorCode::Invalid, at(name),
                           fmt::format("must be a whole number >= 0, got '{}'", fields[column]));
        }
      }
      job.qos_class = std::string(fields[col.qos]);
      if (col.gpu_spec >= 0) job.gpu_types = gpuTypesOf(fields[col.gpu_spec]);
    }
    jobs.push_back(std::move(job));
  }
  std::stable_sort(jobs.begin(), jobs.end(),
                   [](const TraceJob& a, const TraceJob& b) { return a.submit_s < b.submit_s; });
  return jobs;
}

Result<std::vector<TraceJob>> readTrace(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return makeError(ErrorCode::NotFound, "--trace", fmt::format("cannot open '{}'", path));
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  std::string name =
      path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
  return parseTrace(buffer.str(), name);
}

std::vector<TraceJob> selectWindow(const std::vector<TraceJob>& jobs, int64_t from_s,
                                   int64_t to_s) {
  std::vector<TraceJob> out;
  for (const auto& job : jobs) {
    if (job.submit_s >= from_s && job.submit_s < to_s) out.push_back(job);
  }
  return out;
}

}  // namespace troupe::simulator
