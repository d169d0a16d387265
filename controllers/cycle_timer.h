#pragma once

#include <chrono>
#include <string>

#include <nlohmann/json.hpp>

// How long each step of a scheduling cycle took, in milliseconds: wall time, and the
// calling thread's CPU time, which a busy machine does not inflate. The scheduler loop logs
// both with each cycle; the cycle benchmark reports the CPU time.
namespace troupe::controllers {

class CycleTimer {
 public:
  CycleTimer();

  // Ends the step `name`: the time since the previous step ended (or the timer started).
  void step(const std::string& name);

  // By step name.
  const nlohmann::json& wallMs() const { return wall_ms_; }
  const nlohmann::json& cpuMs() const { return cpu_ms_; }
  // One step's CPU time (0 when it did not run), and every step's together.
  double cpuMs(const std::string& name) const;
  double totalCpuMs() const { return cpu_mark_ - cpu_start_; }
  // Wall time since the timer started.
  double elapsedSeconds() const;

 private:
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point mark_;
  double cpu_start_ = 0;
  double cpu_mark_ = 0;
  nlohmann::json wall_ms_ = nlohmann::json::object();
  nlohmann::json cpu_ms_ = nlohmann::json::object();
};

}  // namespace troupe::controllers
