#pragma once

#include <chrono>
#include <string>

#include "common/clock.h"
#include "common/result.h"

// Simulated time for the simulated kubelets: a speed factor that divides every simulated
// duration (start delays, run times, termination times).
namespace troupe::kubelet {

// How much faster than the wall clock simulated time passes (`troupe serve --sim-speed`).
class SimSpeed {
 public:
  // A finite number in [0.001, 100000]; an Invalid error names `flag` and the rule.
  static Result<SimSpeed> parse(double factor, const std::string& flag = "--sim-speed");

  double factor() const { return factor_; }
  // The wall-clock time `sim_seconds` of simulated time takes: sim_seconds / factor,
  // rounded to the millisecond (never negative).
  std::chrono::milliseconds wallTime(double sim_seconds) const;

 private:
  explicit SimSpeed(double factor) : factor_(factor) {}
  double factor_ = 1;
};

}  // namespace troupe::kubelet
