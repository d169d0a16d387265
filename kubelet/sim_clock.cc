#include "kubelet/sim_clock.h"

#include <fmt/format.h>

#include <cmath>

namespace troupe::kubelet {

Result<SimSpeed> SimSpeed::parse(double factor, const std::string& flag) {
  if (!std::isfinite(factor) || factor < 0.001 || factor > 100000) {
    return makeError(ErrorCode::Invalid, flag,
                     fmt::format("must be a number from 0.001 to 100000 (how many times faster "
                                 "than the wall clock simulated time passes), got {}",
                                 factor));
  }
  return SimSpeed(factor);
}

std::chrono::milliseconds SimSpeed::wallTime(double sim_seconds) const {
  if (!(sim_seconds > 0)) return std::chrono::milliseconds(0);
  double ms = std::round(sim_seconds * 1000.0 / factor_);
  // Capped at about 300 years so that the conversion cannot overflow.
  constexpr double kMaxMs = 1e13;
  return std::chrono::milliseconds(static_cast<std::int64_t>(std::min(ms, kMaxMs)));
}

}  // namespace troupe::kubelet
