#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace troupe::simulator {

// Follows, over simulated time, how much of its guarantee each queue receives.
//
// The simulation calls observe() after every settled scheduling cycle with each queue's
// usage (GPUs held by its running jobs) and demand (GPUs of its running plus pending
// jobs); the values hold until the next observe().
//
// - Guaranteed-share ratio: at a moment when a queue with a guarantee g > 0 has
//   "enough demand" (demand >= g), its ratio is min(1, usage / g). minGuaranteedRatio()
//   is the worst such ratio over all queues and moments (1 when no such moment exists).
// - Satisfaction: at a moment when a queue with g > 0 has any demand, its satisfaction
//   is min(1, usage / min(g, demand)), the part of what it was owed that it had.
//   averageSatisfaction(q) is the time-weighted mean of that over the moments q had
//   demand, and jainFairness() is Jain's index over those means for every queue with a
//   guarantee that ever had demand: (sum x)^2 / (n * sum x^2), 1 when all are equal.
class ShareTracker {
 public:
  explicit ShareTracker(std::vector<int64_t> guaranteed_gpus);

  // usage and demand are indexed like the guarantees; `now_s` never goes back.
  void observe(int64_t now_s, const std::vector<int64_t>& usage,
               const std::vector<int64_t>& demand);
  // Closes the last interval at `end_s`.
  void finish(int64_t end_s);

  double minGuaranteedRatio() const { return min_ratio_; }
  // The queue and time of the worst ratio; -1 when none.
  int minRatioQueue() const { return min_ratio_queue_; }
  int64_t minRatioTime() const { return min_ratio_time_; }
  // Seconds during which some queue had enough demand but held less than its guarantee.
  int64_t secondsBelowGuarantee() const { return seconds_below_; }
  double averageSatisfaction(size_t queue) const;
  double jainFairness() const;

 private:
  void closeInterval(int64_t until_s);

  std::vector<int64_t> guaranteed_;
  std::vector<int64_t> usage_;
  std::vector<int64_t> demand_;
  int64_t last_s_ = -1;
  double min_ratio_ = 1.0;
  int min_ratio_queue_ = -1;
  int64_t min_ratio_time_ = -1;
  int64_t seconds_below_ = 0;
  // Per queue: integral of satisfaction over time with demand, and that time.
  std::vector<double> satisfaction_integral_;
  std::vector<double> demand_seconds_;
};

}  // namespace troupe::simulator
