#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace troupe::simulator {

// Follows, over simulated time, how much of what it is owed of its guarantee each queue
// holds (docs/simulator.md, "Guarantees").
//
// The simulation calls observe() after every settled scheduling cycle with each queue's
// held GPUs (its running jobs) and owed GPUs (owedGuarantee(): the most of its guarantee
// its running and pending gangs could fill); the values hold until the next observe().
//
// - Deficit: max(0, owed - held), in GPUs; its integral over time is the queue's
//   owed-but-not-held GPU-seconds. The worst moment of a queue is the one with its
//   largest deficit; the worst moment of the cluster the one with the largest sum of
//   deficits over all queues (the first of equal ones).
// - Guaranteed-share ratio: at a moment a queue is owed something, min(1, held / owed).
//   minGuaranteedRatio() is the worst over all queues and moments (1 when none).
// - Satisfaction: that ratio, time-averaged over the moments the queue was owed
//   something; jainFairness() is Jain's index over those means for every queue ever owed
//   something: (sum x)^2 / (n * sum x^2), 1 when all are equal.
class ShareTracker {
 public:
  explicit ShareTracker(std::vector<int64_t> guaranteed_gpus);

  // A moment's deficit, with what made it.
  struct Moment {
    int64_t time_s = -1;  // -1: no deficit was ever seen
    int64_t owed_gpus = 0;
    int64_t held_gpus = 0;
    int64_t deficit_gpus = 0;
  };

  // held and owed are indexed like the guarantees; `now_s` never goes back.
  void observe(int64_t now_s, const std::vector<int64_t>& held, const std::vector<int64_t>& owed);
  // Closes the last interval at `end_s`.
  void finish(int64_t end_s);

  double deficitGpuSeconds(size_t queue) const { return deficit_gpu_s_[queue]; }
  double totalDeficitGpuSeconds() const;
  const Moment& worstMoment(size_t queue) const { return worst_[queue]; }
  // The cluster's worst moment: owed, held and deficit summed over the queues in deficit.
  const Moment& worstMoment() const { return worst_total_; }

  double minGuaranteedRatio() const { return min_ratio_; }
  // The queue and time of the worst ratio; -1 when none.
  int minRatioQueue() const { return min_ratio_queue_; }
  int64_t minRatioTime() const { return min_ratio_time_; }
  // Seconds during which some queue held less than it was owed.
  int64_t secondsBelowGuarantee() const { return seconds_below_; }
  double averageSatisfaction(size_t queue) const;
  double jainFairness() const;

 private:
  void closeInterval(int64_t until_s);

  std::vector<int64_t> guaranteed_;
  std::vector<int64_t> held_;
  std::vector<int64_t> owed_;
  int64_t last_s_ = -1;
  double min_ratio_ = 1.0;
  int min_ratio_queue_ = -1;
  int64_t min_ratio_time_ = -1;
  int64_t seconds_below_ = 0;
  std::vector<double> deficit_gpu_s_;
  std::vector<Moment> worst_;
  Moment worst_total_;
  // Per queue: integral of satisfaction over the time it was owed something, and that time.
  std::vector<double> satisfaction_integral_;
  std::vector<double> owed_seconds_;
};

}  // namespace troupe::simulator
