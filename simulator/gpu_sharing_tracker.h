#pragma once

#include <cstdint>

namespace troupe::simulator {

// Follows how fragmented the shared GPUs are over simulated time: the GPUs that pods
// sharing them hold some but not all of ("partly used"), and the thousandths left free on
// them ("stranded": capacity only a fraction can still use, never a whole-GPU pod). Each
// observation holds until the next, as the replay's other trackers do.
class GpuSharingTracker {
 public:
  // After every settled cycle.
  void observe(int64_t now_s, int64_t partly_used_gpus, int64_t stranded_milli);
  void finish(int64_t end_s);

  // Integrated over the replay, in GPU-seconds.
  double partlyUsedGpuSeconds() const { return partly_used_integral_; }
  double strandedGpuSeconds() const { return stranded_milli_integral_ / 1000.0; }
  int64_t maxPartlyUsedGpus() const { return max_partly_used_; }
  // Time-averaged over the replay (first observation to its end).
  double averagePartlyUsedGpus() const;

 private:
  void closeInterval(int64_t until_s);

  int64_t first_s_ = -1;
  int64_t last_s_ = -1;
  int64_t partly_used_ = 0;
  int64_t stranded_milli_ = 0;
  double partly_used_integral_ = 0;
  double stranded_milli_integral_ = 0;
  int64_t max_partly_used_ = 0;
};

}  // namespace troupe::simulator
