#include "controllers/cycle_timer.h"

#include "common/thread_cpu_time.h"

namespace troupe::controllers {

CycleTimer::CycleTimer()
    : start_(std::chrono::steady_clock::now()),
      mark_(start_),
      cpu_start_(threadCpuMs()),
      cpu_mark_(cpu_start_) {}

void CycleTimer::step(const std::string& name) {
  const auto at = std::chrono::steady_clock::now();
  const auto cpu_at = threadCpuMs();
  wall_ms_[name] = std::chrono::duration<double, std::milli>(at - mark_).count();
  cpu_ms_[name] = cpu_at - cpu_mark_;
  mark_ = at;
  cpu_mark_ = cpu_at;
}

double CycleTimer::cpuMs(const std::string& name) const { return cpu_ms_.value(name, 0.0); }

double CycleTimer::elapsedSeconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

}  // namespace troupe::controllers
