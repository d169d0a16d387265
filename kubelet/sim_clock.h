#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "common/clock.h"
#include "common/result.h"

// Simulated time for the simulated kubelets: a speed factor that divides every simulated
// duration (start delays, run times, termination times), and the RFC 3339 timestamps a
// kubelet writes into pod and node status.
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

// "2026-11-23T02:01:36Z" (seconds, UTC): the metav1.Time format.
std::string formatTime(Time t);
// "2026-11-23T02:01:36.123456Z": the metav1.MicroTime format (Lease renewTime).
std::string formatMicroTime(Time t);
// Parses "YYYY-MM-DDTHH:MM:SS[.fraction]Z"; nullopt when it is not that shape.
std::optional<Time> parseTime(const std::string& text);

}  // namespace troupe::kubelet
