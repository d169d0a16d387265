#include "queueing/queue_limits.h"

namespace troupe::queueing {

bool withinLimits(const EngineState& st, QueueId q, const ResourceVector& more) {
  for (; q >= 0; q = st.queues[static_cast<std::size_t>(q)].parent) {
    const QueueState& qs = st.queues[static_cast<std::size_t>(q)];
    if (!(qs.allocated + more).fitsIn(qs.spec.limit)) return false;
  }
  return true;
}

}  // namespace troupe::queueing
