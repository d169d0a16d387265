#include "simulator/summary.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace troupe::simulator {

double percentile(std::vector<double>& values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  // Nearest rank: the smallest value with at least p% of the values at or below it.
  auto rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(values.size())));
  rank = std::clamp<size_t>(rank, 1, values.size());
  return values[rank - 1];
}

LatencyStats latencyStats(const std::vector<const JobOutcome*>& jobs) {
  LatencyStats stats;
  std::vector<double> jct, delay;
  for (const JobOutcome* job : jobs) {
    if (!job->finished()) continue;
    jct.push_back(static_cast<double>(job->jctSeconds()));
    delay.push_back(static_cast<double>(job->queueDelaySeconds()));
  }
  stats.jobs = jct.size();
  if (jct.empty()) return stats;
  double n = static_cast<double>(jct.size());
  for (double v : jct) stats.avg_jct_s += v / n;
  for (double v : delay) stats.avg_queue_delay_s += v / n;
  stats.p50_jct_s = percentile(jct, 50);
  stats.p95_jct_s = percentile(jct, 95);
  stats.p99_jct_s = percentile(jct, 99);
  stats.p99_queue_delay_s = percentile(delay, 99);
  return stats;
}

nlohmann::json LatencyStats::toJson() const {
  return {{"jobs", jobs},
          {"avg_jct_s", avg_jct_s},
          {"p50_jct_s", p50_jct_s},
          {"p95_jct_s", p95_jct_s},
          {"p99_jct_s", p99_jct_s},
          {"avg_queue_delay_s", avg_queue_delay_s},
          {"p99_queue_delay_s", p99_queue_delay_s}};
}

namespace {

nlohmann::json momentJson(const ShareTracker::Moment& m) {
  return {{"time_s", m.time_s},
          {"owed_gpus", m.owed_gpus},
          {"held_gpus", m.held_gpus},
          {"deficit_gpus", m.deficit_gpus}};
}

// Per GPU model: its nodes, GPUs, the GPU-hours held on them (fractions counted) and
// their utilization over the makespan. Empty when no node names a model.
nlohmann::json gpuTypesJson(const ClusterSpec& cluster, const std::vector<RunSegment>& segments,
                            double makespan) {
  std::map<std::string, std::pair<int64_t, int64_t>> nodes_gpus;
  for (const auto& node : cluster.nodes) {
    if (node.gpu_type.empty() || node.gpus == 0) continue;
    auto& [nodes, gpus] = nodes_gpus[node.gpu_type];
    ++nodes;
    gpus += node.gpus;
  }
  if (nodes_gpus.empty()) return nlohmann::json::object();
  std::map<std::string, double> busy;
  for (const auto& seg : segments) {
    for (const auto& [node, milli] : seg.placement) {
      const auto& type = cluster.nodes[static_cast<size_t>(node)].gpu_type;
      if (!type.empty()) {
        busy[type] +=
            static_cast<double>(milli) / 1000.0 * static_cast<double>(seg.end_s - seg.start_s);
      }
    }
  }
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [type, counts] : nodes_gpus) {
    const double capacity = makespan * static_cast<double>(counts.second);
    out[type] = {{"nodes", counts.first},
                 {"gpus", counts.second},
                 {"busy_gpu_hours", busy[type] / 3600.0},
                 {"gpu_utilization", capacity > 0 ? busy[type] / capacity : 0.0}};
  }
  return out;
}

}  // namespace

nlohmann::json summarize(const SummaryInputs& in) {
  const auto& jobs = *in.jobs;
  std::vector<const JobOutcome*> all, large, big, fractional, cpu_only;
  std::map<std::string, std::vector<const JobOutcome*>> by_queue;
  int64_t first_submit = INT64_MAX, last_submit = INT64_MIN, last_end = INT64_MIN;
  double work_gpu_s = 0;
  int64_t preemptions = 0, resizes = 0, unfinished = 0;
  double lost_work_gpu_s = 0;
  for (const auto& job : jobs) {
    all.push_back(&job);
    if (job.gpus > 8) large.push_back(&job);
    if (job.gpus >= kBigJobGpus) big.push_back(&job);
    if (job.gpu_milli > 0 && job.gpu_milli < 1000) fractional.push_back(&job);
    if (job.gpu_milli == 0) cpu_only.push_back(&job);
    by_queue[job.queue].push_back(&job);
    first_submit = std::min(first_submit, job.submit_s);
    last_submit = std::max(last_submit, job.submit_s);
    work_gpu_s += static_cast<double>(job.gpu_milli) / 1000.0 * static_cast<double>(job.duration_s);
    if (job.finished()) last_end = std::max(last_end, job.end_s);
    if (!job.finished()) ++unfinished;
    preemptions += job.preemptions;
    resizes += job.resizes;
    lost_work_gpu_s += static_cast<double>(job.lost_work_s * job.gpu_milli) / 1000.0;
  }
  double makespan =
      (jobs.empty() || last_end == INT64_MIN) ? 0.0 : static_cast<double>(last_end - first_submit);
  double busy_gpu_s = 0;
  for (const auto& seg : *in.segments) {
    busy_gpu_s +=
        static_cast<double>(seg.gpuMilli()) / 1000.0 * static_cast<double>(seg.end_s - seg.start_s);
  }
  double capacity_gpu_s = makespan * static_cast<double>(in.cluster_gpus);

  nlohmann::json out = latencyStats(all).toJson();
  out["jobs"] = jobs.size();
  out["finished_jobs"] = jobs.size() - static_cast<size_t>(unfinished);
  out["policy"] = in.policy;
  out["large"] = latencyStats(large).toJson();
  out["big"] = latencyStats(big).toJson();
  // Offered load: the work submitted in the window over what the cluster could do in it.
  const int64_t window_begin = in.window_begin_s.value_or(first_submit);
  const int64_t window_end = in.window_end_s.value_or(last_submit);
  const double window_gpu_s = jobs.empty() ? 0.0
                                           : static_cast<double>(window_end - window_begin) *
                                                 static_cast<double>(in.cluster_gpus);
  out["offered_load"] = window_gpu_s > 0 ? work_gpu_s / window_gpu_s : 0.0;
  out["gpu_utilization"] = capacity_gpu_s > 0 ? busy_gpu_s / capacity_gpu_s : 0.0;
  out["busy_gpu_hours"] = busy_gpu_s / 3600.0;
  out["lost_work_gpu_hours"] = lost_work_gpu_s / 3600.0;
  if (!fractional.empty()) out["fractional"] = latencyStats(fractional).toJson();
  if (!cpu_only.empty()) out["cpu_only"] = latencyStats(cpu_only).toJson();
  if (in.cluster != nullptr) {
    if (auto types = gpuTypesJson(*in.cluster, *in.segments, makespan); !types.empty())
      out["gpu_types"] = std::move(types);
  }
  if (in.sharing != nullptr) {
    out["gpu_sharing"] = {{"partly_used_gpu_hours", in.sharing->partlyUsedGpuSeconds() / 3600.0},
                          {"stranded_gpu_hours", in.sharing->strandedGpuSeconds() / 3600.0},
                          {"average_partly_used_gpus", in.sharing->averagePartlyUsedGpus()},
                          {"max_partly_used_gpus", in.sharing->maxPartlyUsedGpus()}};
  }
  out["jain_fairness"] = in.shares->jainFairness();
  out["min_guaranteed_share_ratio"] = in.shares->minGuaranteedRatio();
  out["guarantee_deficit_gpu_hours"] = in.shares->totalDeficitGpuSeconds() / 3600.0;
  out["guarantee_deficit_worst"] = momentJson(in.shares->worstMoment());
  if (in.idle != nullptr) {
    nlohmann::json causes = nlohmann::json::object();
    for (size_t c = 0; c < kIdleCauses; ++c) {
      const auto cause = static_cast<IdleCause>(c);
      causes[idleCauseName(cause)] = in.idle->gpuSeconds(cause) / 3600.0;
    }
    out["idle_while_waiting"] = {{"gpu_hours", in.idle->idleGpuSeconds() / 3600.0},
                                 {"by_cause_gpu_hours", std::move(causes)},
                                 {"waiting_seconds", in.idle->waitingSeconds()}};
  }
  if (in.reservations != nullptr) {
    const ReservationTracker& r = *in.reservations;
    // Which jobs held reservations, and for how long, by size.
    int64_t big_reserved = 0, small_reserved = 0;
    double big_reserved_s = 0, small_reserved_s = 0;
    for (const auto& job : jobs) {
      if (job.reserved_s <= 0) continue;
      if (job.gpus >= kBigJobGpus) {
        ++big_reserved;
        big_reserved_s += static_cast<double>(job.reserved_s);
      } else {
        ++small_reserved;
        small_reserved_s += static_cast<double>(job.reserved_s);
      }
    }
    out["reservations"] = {
        {"made", r.reservationsMade()},
        {"started", r.reservationsStarted()},
        {"max_held", r.maxHeld()},
        {"average_held", r.averageHeld()},
        {"average_held_gpus", r.averageHeldGpus()},
        {"average_hold_s", r.averageHoldSeconds()},
        {"max_hold_s", r.maxHoldSeconds()},
        {"big_jobs_reserved", big_reserved},
        {"big_average_reserved_s",
         big_reserved > 0 ? big_reserved_s / static_cast<double>(big_reserved) : 0.0},
        {"small_jobs_reserved", small_reserved},
        {"small_average_reserved_s",
         small_reserved > 0 ? small_reserved_s / static_cast<double>(small_reserved) : 0.0}};
  }
  out["seconds_below_guarantee"] = in.shares->secondsBelowGuarantee();
  if (in.shares->minRatioQueue() >= 0) {
    out["min_guaranteed_share_at"] = {
        {"queue", in.queue_names[static_cast<size_t>(in.shares->minRatioQueue())]},
        {"time_s", in.shares->minRatioTime()}};
  }
  out["preemptions"] = preemptions;
  out["resizes"] = resizes;
  out["makespan_s"] = makespan;
  out["cluster_gpus"] = in.cluster_gpus;
  out["checkpoint_interval_s"] = in.checkpoint_interval_s;
  out["skipped_jobs"] = in.skipped_jobs;
  out["never_ran_jobs"] = in.never_ran_jobs;
  out["scheduling_cycles"] = in.cycles;
  out["wall_seconds"] = in.wall_seconds;
  nlohmann::json queues = nlohmann::json::object();
  for (size_t q = 0; q < in.queue_names.size(); ++q) {
    auto it = by_queue.find(in.queue_names[q]);
    if (it == by_queue.end()) continue;
    nlohmann::json entry = latencyStats(it->second).toJson();
    entry["guaranteed_gpus"] = in.queue_guarantees[q];
    entry["average_satisfaction"] = in.shares->averageSatisfaction(q);
    entry["deficit_gpu_hours"] = in.shares->deficitGpuSeconds(q) / 3600.0;
    entry["worst_deficit"] = momentJson(in.shares->worstMoment(q));
    queues[in.queue_names[q]] = std::move(entry);
  }
  out["queues"] = std::move(queues);
  return out;
}

}  // namespace troupe::simulator
