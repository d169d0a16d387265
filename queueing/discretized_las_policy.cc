#include "queueing/discretized_las_policy.h"

#include <algorithm>
#include <cmath>

namespace troupe::queueing {

std::int64_t DiscretizedLasPolicy::queueOf(double service) const {
  const auto& thresholds = st_.policy.tiresias.thresholds;
  std::int64_t q = 0;
  for (std::int64_t t : thresholds)
    if (service >= static_cast<double>(t)) ++q;
  return q;
}

std::int64_t DiscretizedLasPolicy::rankKey(GangId g, const AttainedService::Record& r) {
  const std::int64_t q = queueOf(r.gpu_seconds - r.forgiven);
  const GangState& gs = st_.gangs[g];
  const std::int64_t knob = st_.policy.tiresias.promote_knob;
  if (!gs.running && q > 0 && knob > 0 && r.last_run > 0) {
    const Seconds at = r.waiting_since + knob * r.last_run;
    if (promote_at_.size() <= g) promote_at_.resize(std::max<std::size_t>(st_.gangs.size(), g + 1));
    promote_at_[g] = at;
    promotions_.emplace(at, g);
  }
  return q;
}

bool DiscretizedLasPolicy::stillWaits(Seconds at, GangId g) const {
  const GangState& gs = st_.gangs[g];
  return gs.present && !gs.running && gs.queue >= 0 && promote_at_[g] == at;
}

void DiscretizedLasPolicy::beforeRanking(Seconds now) {
  while (!promotions_.empty() && promotions_.begin()->first <= now) {
    const auto [at, g] = *promotions_.begin();
    promotions_.erase(promotions_.begin());
    if (!stillWaits(at, g)) continue;  // it ran again since, or left
    attained_.forgive(st_, g);
    rekey(g);
  }
}

Seconds DiscretizedLasPolicy::nextKeyChange(Seconds now) {
  Seconds next = kNever;
  while (!promotions_.empty() &&
         !stillWaits(promotions_.begin()->first, promotions_.begin()->second))
    promotions_.erase(promotions_.begin());
  if (!promotions_.empty()) next = std::max(promotions_.begin()->first, now + 1);
  const auto& thresholds = st_.policy.tiresias.thresholds;
  for (GangId g : runningGangs()) {
    const GangState& gs = st_.gangs[g];
    const auto& r = attained_.of(st_, g);
    const double service = r.gpu_seconds - r.forgiven;
    const auto q = static_cast<std::size_t>(queueOf(service));
    if (q >= thresholds.size() || gs.held[kGpu] <= 0) continue;
    const double left = static_cast<double>(thresholds[q]) - service;
    const auto dt = static_cast<Seconds>(std::ceil(left / static_cast<double>(gs.held[kGpu])));
    next = std::min(next, now + std::max<Seconds>(1, dt));
  }
  return next;
}

}  // namespace troupe::queueing
