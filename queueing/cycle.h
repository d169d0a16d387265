#pragma once

#include "queueing/answer_memo.h"
#include "queueing/decisions.h"
#include "queueing/engine_state.h"

namespace troupe::queueing {

// One scheduling cycle over the engine state at time `now` (docs/scheduling.md): fair
// shares, then admission in fair-share order with placement, preemption and
// reservations, then elastic growth, then explanations. Applies its own decisions.
// Answers reused from earlier cycles are asked of `memo` (answer_memo.h).
Decisions runCycle(EngineState& st, AnswerMemo& memo, Seconds now);

}  // namespace troupe::queueing
