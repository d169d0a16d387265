#include "simulator/trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <numeric>
#include <sstream>
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

}  // namespace

Result<std::vector<TraceJob>> parseTrace(std::string_view text, std::string_view source_name) {
  auto where = [&](size_t line, std::string_view column) {
    return fmt::format("{}:{}:{}", source_name, line, column);
  };
  std::vector<TraceJob> jobs;
  size_t line_no = 0;
  size_t pos = 0;
  int col_id = -1, col_submit = -1, col_gpus = -1, col_duration = -1, col_queue = -1;
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
      for (size_t i = 0; i < fields.size(); ++i) {
        auto name = trim(fields[i]);
        int idx = static_cast<int>(i);
        if (name == "job_id") col_id = idx;
        if (name == "submit_time_s") col_submit = idx;
        if (name == "num_gpus") col_gpus = idx;
        if (name == "duration_s") col_duration = idx;
        if (name == "virtual_cluster") col_queue = idx;
      }
      for (auto [col, name] :
           {std::pair{col_id, "job_id"}, std::pair{col_submit, "submit_time_s"},
            std::pair{col_gpus, "num_gpus"}, std::pair{col_duration, "duration_s"},
            std::pair{col_queue, "virtual_cluster"}}) {
        if (col < 0) {
          return makeError(ErrorCode::Invalid, where(line_no, name),
                           "required column is missing from the header line");
        }
      }
      continue;
    }
    if (fields.size() != header_width) {
      return makeError(
          ErrorCode::Invalid, where(line_no, "*"),
          fmt::format("has {} fields, the header has {}", fields.size(), header_width));
    }
    TraceJob job;
    job.id = std::string(trim(fields[col_id]));
    if (job.id.empty()) {
      return makeError(ErrorCode::Invalid, where(line_no, "job_id"), "must not be empty");
    }
    if (!seen_ids.insert(job.id).second) {
      return makeError(ErrorCode::Invalid, where(line_no, "job_id"),
                       fmt::format("duplicate job id '{}'", job.id));
    }
    int64_t gpus = 0;
    if (!parseWhole(fields[col_submit], job.submit_s) || job.submit_s < 0) {
      return makeError(ErrorCode::Invalid, where(line_no, "submit_time_s"),
                       fmt::format("must be a whole number >= 0, got '{}'", fields[col_submit]));
    }
    if (!parseWhole(fields[col_gpus], gpus) || gpus < 0 || gpus > 1'000'000) {
      return makeError(
          ErrorCode::Invalid, where(line_no, "num_gpus"),
          fmt::format("must be a whole number in [0, 1000000], got '{}'", fields[col_gpus]));
    }
    job.gpus = static_cast<int>(gpus);
    if (!parseWhole(fields[col_duration], job.duration_s) || job.duration_s < 0) {
      return makeError(ErrorCode::Invalid, where(line_no, "duration_s"),
                       fmt::format("must be a whole number >= 0, got '{}'", fields[col_duration]));
    }
    job.queue = std::string(trim(fields[col_queue]));
    if (job.queue.empty()) {
      return makeError(ErrorCode::Invalid, where(line_no, "virtual_cluster"), "must not be empty");
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
