#pragma once

#include <array>

#include "queueing/engine_state.h"

namespace troupe::queueing {

// The resources some present queue guarantees: those a quota model with no notion of
// borrowing beyond guarantees (YARN's capacities, Kueue's nominal quotas) covers. A
// resource no queue guarantees is not limited by such quotas (as a resource a Kueue
// ClusterQueue does not list is simply not admitted against).
inline std::array<bool, kMaxResources> coveredResources(const EngineState& st) {
  std::array<bool, kMaxResources> out{};
  for (const QueueState& q : st.queues)
    if (q.present)
      for (std::size_t r = 0; r < kMaxResources; ++r) out[r] = out[r] || q.spec.guaranteed[r] > 0;
  return out;
}

}  // namespace troupe::queueing
