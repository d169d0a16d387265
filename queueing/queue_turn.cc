#include "queueing/queue_turn.h"

#include <algorithm>

namespace troupe::queueing {

QueueTurn queueTurn(const EngineState& st, QueueId q) {
  const QueueState& qs = st.queues[static_cast<std::size_t>(q)];
  const double w = std::clamp(st.policy.usage_weight, 0.0, 1.0);
  double key = 0;
  for (std::size_t r = 0; r < kMaxResources; ++r) {
    const double eff = (1 - w) * static_cast<double>(qs.allocated[r]) +
                       w * static_cast<double>(qs.spec.decayed_usage[r]);
    if (eff <= 0) continue;
    const double fair = qs.fair_share[r] > 0 ? static_cast<double>(qs.fair_share[r]) : 0.5;
    key = std::max(key, eff / fair);
  }
  return QueueTurn{key, -qs.spec.priority, qs.rank, q};
}

}  // namespace troupe::queueing
