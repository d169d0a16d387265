#pragma once

#include "queueing/answer_memo.h"
#include "queueing/decisions.h"
#include "queueing/engine_state.h"
#include "queueing/scheduling_policy.h"

namespace troupe::queueing {

// One scheduling cycle at time `now` (docs/scheduling.md, "One cycle"), the same steps
// whatever the policy:
//  1. the cycle's number and time (never earlier than the last cycle's);
//  2. indexes (node ranks, topology domains, queue ranks), when dirty;
//  3. fair shares, when demand, capacity or a queue changed;
//  4. reservations carried over from the last cycle, re-applied;
//  5. the memo drops what moved since the last cycle, and claims on terminating capacity
//     are forgotten;
//  6. the policy's admission pass (admissions, preemptions, resizes, explanations);
//  7. the free capacity gangs held while waiting for terminating pods is given back;
//  8. gangs naming no queue are explained, and every changed explanation and every
//     queue's status reported;
//  9. the policy's next wake-up.
// Applies its own decisions to the state.
Decisions runCycle(EngineState& st, AnswerMemo& memo, SchedulingPolicy& policy, Seconds now);

}  // namespace troupe::queueing
