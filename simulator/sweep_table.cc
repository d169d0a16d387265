#include "simulator/sweep_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace troupe::simulator {
namespace {

// A number for people: thousands separated, `decimals` after the point.
std::string readable(double v, int decimals) {
  const std::string digits = fmt::format("{:.{}f}", std::fabs(v), decimals);
  const size_t point = std::min(digits.find('.'), digits.size());
  std::string out = v < 0 ? "-" : "";
  for (size_t i = 0; i < point; ++i) {
    if (i > 0 && (point - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out + digits.substr(point);
}

// Reads a number at a '/'-separated path of the summary, or an error naming it.
Result<double> number(const nlohmann::json& summary, const std::string& path) {
  const nlohmann::json* at = &summary;
  size_t begin = 0;
  while (begin <= path.size()) {
    const size_t end = std::min(path.find('/', begin), path.size());
    const std::string key = path.substr(begin, end - begin);
    if (!at->is_object() || !at->contains(key)) {
      return makeError(ErrorCode::Invalid, path, "the run's summary.json has no such key");
    }
    at = &(*at)[key];
    begin = end + 1;
  }
  if (!at->is_number()) {
    return makeError(ErrorCode::Invalid, path, "is not a number in the run's summary.json");
  }
  return at->get<double>();
}

// How a column's cell is made from a run.
struct Cell {
  const char* csv;
  const char* markdown;
  const char* path;  // summary key, or "" for the run's own fields
  double scale = 1;  // the Markdown table shows the value times this
  int decimals = 0;  // in the Markdown table
};

const std::vector<Cell>& cells() {
  static const std::vector<Cell> kCells = {
      {"scale", "scale", ""},
      {"cluster_gpus", "GPUs", "cluster_gpus"},
      {"offered_load", "offered load", "offered_load", 1, 2},
      {"policy", "policy", ""},
      {"jobs", "jobs", "jobs"},
      {"finished_jobs", "finished", "finished_jobs"},
      {"avg_jct_s", "avg JCT s", "avg_jct_s"},
      {"p99_queue_delay_s", "p99 queue delay s", "p99_queue_delay_s"},
      {"gpu_utilization", "GPU util.", "gpu_utilization", 1, 3},
      {"makespan_s", "makespan Ms", "makespan_s", 1e-6, 2},
      {"big_jobs", "jobs >= 32 GPUs", "big/jobs"},
      {"big_avg_jct_s", ">= 32 GPUs: avg JCT s", "big/avg_jct_s"},
      {"big_p99_queue_delay_s", ">= 32 GPUs: p99 queue delay s", "big/p99_queue_delay_s"},
      {"idle_waiting_gpu_h", "idle while gangs wait, GPU-h", "idle_while_waiting/gpu_hours"},
      {"idle_reservation_gpu_h", "idle: reservation",
       "idle_while_waiting/by_cause_gpu_hours/reservation"},
      {"idle_fragmentation_gpu_h", "idle: fragmentation",
       "idle_while_waiting/by_cause_gpu_hours/fragmentation"},
      {"idle_quota_gpu_h", "idle: quota", "idle_while_waiting/by_cause_gpu_hours/quota"},
      {"idle_queue_head_gpu_h", "idle: FIFO head",
       "idle_while_waiting/by_cause_gpu_hours/queue_head"},
      {"idle_evicted_gpu_h", "idle: evicted", "idle_while_waiting/by_cause_gpu_hours/evicted"},
      {"idle_unexplained_gpu_h", "idle: unexplained",
       "idle_while_waiting/by_cause_gpu_hours/unexplained"},
      {"guarantee_deficit_gpu_h", "guarantee deficit GPU-h", "guarantee_deficit_gpu_hours"},
      {"preemptions", "preemptions", "preemptions"},
      {"lost_work_gpu_h", "GPU-h redone", "lost_work_gpu_hours"},
  };
  return kCells;
}

}  // namespace

const std::vector<SweepColumn>& sweepColumns() {
  static const std::vector<SweepColumn> kColumns = [] {
    std::vector<SweepColumn> out;
    for (const Cell& c : cells()) out.push_back({c.csv, c.markdown});
    return out;
  }();
  return kColumns;
}

std::vector<const SweepRun*> sweepOrder(const std::vector<SweepRun>& runs,
                                        const std::vector<std::string>& policies) {
  auto rank = [&](const std::string& policy) {
    return std::find(policies.begin(), policies.end(), policy) - policies.begin();
  };
  std::vector<const SweepRun*> order;
  for (const auto& run : runs) order.push_back(&run);
  std::stable_sort(order.begin(), order.end(), [&](const SweepRun* a, const SweepRun* b) {
    if (a->scale_value != b->scale_value) return a->scale_value > b->scale_value;
    return rank(a->policy) < rank(b->policy);
  });
  return order;
}

Result<std::vector<std::vector<std::string>>> sweepCells(const std::vector<SweepRun>& runs,
                                                         const std::vector<std::string>& policies,
                                                         bool for_markdown) {
  std::vector<std::vector<std::string>> rows;
  for (const SweepRun* run : sweepOrder(runs, policies)) {
    std::vector<std::string> row;
    for (const Cell& c : cells()) {
      if (std::string(c.csv) == "scale") {
        row.push_back(run->scale);
        continue;
      }
      if (std::string(c.csv) == "policy") {
        row.push_back(run->policy);
        continue;
      }
      auto v = number(run->summary, c.path);
      if (!v) return v.error();
      // The CSV keeps the summary's unit, which its header names (makespan_s in seconds).
      row.push_back(for_markdown ? readable(*v * c.scale, c.decimals) : fmt::format("{}", *v));
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

Result<std::string> sweepMarkdown(const std::vector<SweepRun>& runs,
                                  const std::vector<std::string>& policies) {
  auto rows = sweepCells(runs, policies, true);
  if (!rows) return rows.error();
  std::string out = "|";
  std::string rule = "|";
  for (const Cell& c : cells()) {
    out += fmt::format(" {} |", c.markdown);
    const bool text = std::string(c.csv) == "scale" || std::string(c.csv) == "policy";
    rule += text ? "---|" : "--:|";
  }
  out += "\n" + rule + "\n";
  for (const auto& row : *rows) {
    out += "|";
    for (const auto& cell : row) out += fmt::format(" {} |", cell);
    out += "\n";
  }
  return out;
}

Result<std::string> sweepCsv(const std::vector<SweepRun>& runs,
                             const std::vector<std::string>& policies) {
  auto rows = sweepCells(runs, policies, false);
  if (!rows) return rows.error();
  std::string out;
  for (size_t i = 0; i < cells().size(); ++i)
    out += (i > 0 ? "," : "") + std::string(cells()[i].csv);
  out += "\n";
  for (const auto& row : *rows) {
    for (size_t i = 0; i < row.size(); ++i) out += (i > 0 ? "," : "") + row[i];
    out += "\n";
  }
  return out;
}

}  // namespace troupe::simulator
