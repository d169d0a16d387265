#include "simulator/gpu_sharing_tracker.h"

#include <algorithm>

namespace troupe::simulator {

void GpuSharingTracker::closeInterval(int64_t until_s) {
  if (last_s_ < 0 || until_s <= last_s_) return;
  const auto length = static_cast<double>(until_s - last_s_);
  partly_used_integral_ += static_cast<double>(partly_used_) * length;
  stranded_milli_integral_ += static_cast<double>(stranded_milli_) * length;
  last_s_ = until_s;
}

void GpuSharingTracker::observe(int64_t now_s, int64_t partly_used_gpus, int64_t stranded_milli) {
  if (first_s_ < 0) first_s_ = now_s;
  closeInterval(now_s);
  last_s_ = std::max(last_s_, now_s);
  partly_used_ = partly_used_gpus;
  stranded_milli_ = stranded_milli;
  max_partly_used_ = std::max(max_partly_used_, partly_used_gpus);
}

void GpuSharingTracker::finish(int64_t end_s) { closeInterval(end_s); }

double GpuSharingTracker::averagePartlyUsedGpus() const {
  if (first_s_ < 0 || last_s_ <= first_s_) return 0;
  return partly_used_integral_ / static_cast<double>(last_s_ - first_s_);
}

}  // namespace troupe::simulator
