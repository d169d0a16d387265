#include "simulator/share_tracker.h"

#include <algorithm>

#include "common/check.h"

namespace troupe::simulator {

ShareTracker::ShareTracker(std::vector<int64_t> guaranteed_gpus)
    : guaranteed_(std::move(guaranteed_gpus)),
      usage_(guaranteed_.size(), 0),
      demand_(guaranteed_.size(), 0),
      satisfaction_integral_(guaranteed_.size(), 0.0),
      demand_seconds_(guaranteed_.size(), 0.0) {}

void ShareTracker::closeInterval(int64_t until_s) {
  if (last_s_ < 0 || until_s <= last_s_) return;
  double span = static_cast<double>(until_s - last_s_);
  bool below = false;
  for (size_t q = 0; q < guaranteed_.size(); ++q) {
    int64_t g = guaranteed_[q];
    if (g <= 0 || demand_[q] <= 0) continue;
    int64_t owed = std::min(g, demand_[q]);
    double satisfaction = std::min(1.0, static_cast<double>(usage_[q]) / static_cast<double>(owed));
    satisfaction_integral_[q] += satisfaction * span;
    demand_seconds_[q] += span;
    if (demand_[q] >= g && usage_[q] < g) below = true;
  }
  if (below) seconds_below_ += until_s - last_s_;
}

void ShareTracker::observe(int64_t now_s, const std::vector<int64_t>& usage,
                           const std::vector<int64_t>& demand) {
  TROUPE_CHECK(usage.size() == guaranteed_.size() && demand.size() == guaranteed_.size(),
               "ShareTracker: {} queues, got usage for {} and demand for {}", guaranteed_.size(),
               usage.size(), demand.size());
  TROUPE_CHECK(now_s >= last_s_, "ShareTracker: time went back from {} to {}", last_s_, now_s);
  closeInterval(now_s);
  last_s_ = now_s;
  usage_ = usage;
  demand_ = demand;
  for (size_t q = 0; q < guaranteed_.size(); ++q) {
    int64_t g = guaranteed_[q];
    TROUPE_CHECK(usage[q] <= demand[q], "ShareTracker: queue {} uses {} GPUs but demands {}", q,
                 usage[q], demand[q]);
    if (g <= 0 || demand[q] < g) continue;
    double ratio = std::min(1.0, static_cast<double>(usage[q]) / static_cast<double>(g));
    if (ratio < min_ratio_) {
      min_ratio_ = ratio;
      min_ratio_queue_ = static_cast<int>(q);
      min_ratio_time_ = now_s;
    }
  }
}

void ShareTracker::finish(int64_t end_s) {
  closeInterval(end_s);
  last_s_ = std::max(last_s_, end_s);
}

double ShareTracker::averageSatisfaction(size_t queue) const {
  if (demand_seconds_[queue] <= 0) return 1.0;
  return satisfaction_integral_[queue] / demand_seconds_[queue];
}

double ShareTracker::jainFairness() const {
  double sum = 0, sum_sq = 0;
  int n = 0;
  for (size_t q = 0; q < guaranteed_.size(); ++q) {
    if (guaranteed_[q] <= 0 || demand_seconds_[q] <= 0) continue;
    double x = averageSatisfaction(q);
    sum += x;
    sum_sq += x * x;
    ++n;
  }
  if (n == 0 || sum_sq <= 0) return 1.0;
  return sum * sum / (n * sum_sq);
}

}  // namespace troupe::simulator
