#pragma once

#include "queueing/engine_state.h"

namespace troupe::queueing {

// The quota rule of admission (docs/scheduling.md, "One cycle"): queue q and each of its
// ancestors stay within their `limit` once `more` is added to what they hold; else a gang
// asking `more` waits with QueueAtLimit. Every admission, every growth of an elastic gang
// and the FIFO baseline check it here.
bool withinLimits(const EngineState& st, QueueId q, const ResourceVector& more);

}  // namespace troupe::queueing
