#include "simulator/share_tracker.h"

#include <algorithm>
#include <numeric>

#include "common/check.h"

namespace troupe::simulator {

ShareTracker::ShareTracker(std::vector<int64_t> guaranteed_gpus)
    : guaranteed_(std::move(guaranteed_gpus)),
      held_(guaranteed_.size(), 0),
      owed_(guaranteed_.size(), 0),
      deficit_gpu_s_(guaranteed_.size(), 0.0),
      worst_(guaranteed_.size()),
      satisfaction_integral_(guaranteed_.size(), 0.0),
      owed_seconds_(guaranteed_.size(), 0.0) {}

void ShareTracker::closeInterval(int64_t until_s) {
  if (last_s_ < 0 || until_s <= last_s_) return;
  const auto span = static_cast<double>(until_s - last_s_);
  bool below = false;
  for (size_t q = 0; q < guaranteed_.size(); ++q) {
    if (owed_[q] <= 0) continue;
    const double ratio =
        std::min(1.0, static_cast<double>(held_[q]) / static_cast<double>(owed_[q]));
    satisfaction_integral_[q] += ratio * span;
    owed_seconds_[q] += span;
    if (held_[q] < owed_[q]) {
      below = true;
      deficit_gpu_s_[q] += static_cast<double>(owed_[q] - held_[q]) * span;
    }
  }
  if (below) seconds_below_ += until_s - last_s_;
}

void ShareTracker::observe(int64_t now_s, const std::vector<int64_t>& held,
                           const std::vector<int64_t>& owed) {
  TROUPE_CHECK(held.size() == guaranteed_.size() && owed.size() == guaranteed_.size(),
               "ShareTracker: {} queues, got held GPUs for {} and owed for {}", guaranteed_.size(),
               held.size(), owed.size());
  TROUPE_CHECK(now_s >= last_s_, "ShareTracker: time went back from {} to {}", last_s_, now_s);
  closeInterval(now_s);
  last_s_ = now_s;
  held_ = held;
  owed_ = owed;
  Moment total{.time_s = now_s};
  for (size_t q = 0; q < guaranteed_.size(); ++q) {
    TROUPE_CHECK(owed[q] <= std::max<int64_t>(guaranteed_[q], 0),
                 "ShareTracker: queue {} is owed {} GPUs, more than its guarantee {}", q, owed[q],
                 guaranteed_[q]);
    if (owed[q] <= 0) continue;
    const double ratio = std::min(1.0, static_cast<double>(held[q]) / static_cast<double>(owed[q]));
    if (ratio < min_ratio_) {
      min_ratio_ = ratio;
      min_ratio_queue_ = static_cast<int>(q);
      min_ratio_time_ = now_s;
    }
    const int64_t deficit = owed[q] - held[q];
    if (deficit <= 0) continue;
    total.owed_gpus += owed[q];
    total.held_gpus += held[q];
    total.deficit_gpus += deficit;
    if (deficit > worst_[q].deficit_gpus) worst_[q] = Moment{now_s, owed[q], held[q], deficit};
  }
  if (total.deficit_gpus > worst_total_.deficit_gpus) worst_total_ = total;
}

void ShareTracker::finish(int64_t end_s) {
  closeInterval(end_s);
  last_s_ = std::max(last_s_, end_s);
}

double ShareTracker::totalDeficitGpuSeconds() const {
  return std::accumulate(deficit_gpu_s_.begin(), deficit_gpu_s_.end(), 0.0);
}

double ShareTracker::averageSatisfaction(size_t queue) const {
  if (owed_seconds_[queue] <= 0) return 1.0;
  return satisfaction_integral_[queue] / owed_seconds_[queue];
}

double ShareTracker::jainFairness() const {
  double sum = 0, sum_sq = 0;
  int n = 0;
  for (size_t q = 0; q < guaranteed_.size(); ++q) {
    if (owed_seconds_[q] <= 0) continue;
    double x = averageSatisfaction(q);
    sum += x;
    sum_sq += x * x;
    ++n;
  }
  if (n == 0 || sum_sq <= 0) return 1.0;
  return sum * sum / (n * sum_sq);
}

}  // namespace troupe::simulator
