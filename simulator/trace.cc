#include "simulator/trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <numeric>
#include <sstream>
#include <tuple>
#include <unordered_set>

namespace troupe::simulator {
namespace {

std::vector<std::string_view> splitFields(std::string_view line) {
  std::vector<std::string_view> fields;
  size_t start = 0;
  while (true) {
    size_t comma = line.find(',', start);
    if (comma == std::string_view::npos) {
      fields.push_back(line.substr(start));
      return fields;
    }
    fields.push_back(line.substr(start, comma - start));
    start = comma + 1;
  }
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

// Whole numbers only; "12.0" is accepted as 12 because some exports write floats.
bool parseWhole(std::string_view text, int64_t& out) {
  text = trim(text);
  if (text.size() > 2 && text.substr(text.size() - 2) == ".0") text.remove_suffix(2);
  if (text.empty()) return false;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc{} && ptr == text.data() + text.size();
}

// Where each known column is in the header, -1 when absent.
struct TraceColumns {
  int id = -1, submit = -1, gpus = -1, duration = -1, queue = -1;
  int gpu_milli = -1, cpu_milli = -1, memory_mib = -1, qos = -1, gpu_spec = -1;
  TraceShape shape = TraceShape::Teams;

  // Reads the header; the name of the first required column missing, or "".
  std::string read(const std::vector<std::string_view>& header) {
    for (size_t i = 0; i < header.size(); ++i) {
      const auto name = trim(header[i]);
      const int idx = static_cast<int>(i);
      for (auto [col, want] :
           {std::pair{&id, "job_id"}, std::pair{&submit, "submit_time_s"},
            std::pair{&gpus, "num_gpus"}, std::pair{&duration, "duration_s"},
            std::pair{&queue, "virtual_cluster"}, std::pair{&gpu_milli, "gpu_milli"},
            std::pair{&cpu_milli, "cpu_milli"}, std::pair{&memory_mib, "memory_mib"},
            std::pair{&qos, "qos_class"}, std::pair{&gpu_spec, "gpu_spec"}}) {
        if (name == want) *col = idx;
      }
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
  cell = trim(cell);
  while (!cell.empty()) {
    const size_t bar = cell.find('|');
    auto name = trim(cell.substr(0, bar));
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
  auto where = [&](size_t line, std::string_view column) {
    return fmt::format("{}:{}:{}", source_name, line, column);
  };
  std::vector<TraceJob> jobs;
  size_t line_no = 0;
  size_t pos = 0;
  TraceColumns col;
  size_t header_width = 0;
  std::unordered_set<std::string> seen_ids;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (trim(line).empty()) continue;
    auto fields = splitFields(line);
    if (header_width == 0) {
      header_width = fields.size();
      if (auto missing = col.read(fields); !missing.empty()) {
        return makeError(ErrorCode::Invalid, where(line_no, missing),
                         "required column is missing from the header line");
      }
      continue;
    }
    if (fields.size() != header_width) {
      return makeError(
          ErrorCode::Invalid, where(line_no, "*"),
          fmt::format("has {} fields, the header has {}", fields.size(), header_width));
    }
    TraceJob job;
    job.id = std::string(trim(fields[col.id]));
    if (job.id.empty()) {
      return makeError(ErrorCode::Invalid, where(line_no, "job_id"), "must not be empty");
    }
    if (!seen_ids.insert(job.id).second) {
      return makeError(ErrorCode::Invalid, where(line_no, "job_id"),
                       fmt::format("duplicate job id '{}'", job.id));
    }
    int64_t gpus = 0;
    if (!parseWhole(fields[col.submit], job.submit_s) || job.submit_s < 0) {
      return makeError(ErrorCode::Invalid, where(line_no, "submit_time_s"),
                       fmt::format("must be a whole number >= 0, got '{}'", fields[col.submit]));
    }
    if (!parseWhole(fields[col.gpus], gpus) || gpus < 0 || gpus > 1'000'000) {
      return makeError(
          ErrorCode::Invalid, where(line_no, "num_gpus"),
          fmt::format("must be a whole number in [0, 1000000], got '{}'", fields[col.gpus]));
    }
    job.gpus = static_cast<int>(gpus);
    const bool sharing = col.shape == TraceShape::Sharing;
    // A pod that was never scheduled has no run time in the sharing shape.
    if (sharing && trim(fields[col.duration]).empty()) {
      job.never_ran = true;
    } else if (!parseWhole(fields[col.duration], job.duration_s) || job.duration_s < 0) {
      return makeError(ErrorCode::Invalid, where(line_no, "duration_s"),
                       fmt::format("must be a whole number >= 0{}, got '{}'",
                                   sharing ? " or empty" : "", fields[col.duration]));
    }
    if (col.queue >= 0) job.queue = std::string(trim(fields[col.queue]));
    if (!sharing && job.queue.empty()) {
      return makeError(ErrorCode::Invalid, where(line_no, "virtual_cluster"), "must not be empty");
    }
    if (sharing) {
      int64_t milli = 0;
      // 0 GPUs: 0; one GPU: its share, 1000 for all of it; more: 1000 (whole GPUs).
      const int64_t lo = job.gpus == 0 ? 0 : job.gpus == 1 ? 1 : 1000;
      const int64_t hi = job.gpus == 0 ? 0 : 1000;
      if (!parseWhole(fields[col.gpu_milli], milli) || milli < lo || milli > hi) {
        return makeError(ErrorCode::Invalid, where(line_no, "gpu_milli"),
                         fmt::format("must be a whole number in [{}, {}] for {} GPUs, got '{}'", lo,
                                     hi, job.gpus, fields[col.gpu_milli]));
      }
      job.gpu_milli = milli < 1000 ? static_cast<int>(milli) : 0;
      for (auto [column, out, name] : {std::tuple{col.cpu_milli, &job.cpu_milli, "cpu_milli"},
                                       std::tuple{col.memory_mib, &job.memory_mib, "memory_mib"}}) {
        if (!parseWhole(fields[column], *out) || *out < 0 || *out > (int64_t{1} << 40)) {
          return makeError(ErrorCode::Invalid, where(line_no, name),
                           fmt::format("must be a whole number >= 0, got '{}'", fields[column]));
        }
      }
      job.qos_class = std::string(trim(fields[col.qos]));
      if (col.gpu_spec >= 0) job.gpu_types = gpuTypesOf(fields[col.gpu_spec]);
    }
    jobs.push_back(std::move(job));
  }
  if (header_width == 0) {
    return makeError(ErrorCode::Invalid, std::string(source_name), "the trace has no header line");
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
