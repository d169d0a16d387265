#pragma once

#include "queueing/resource_vector.h"
#include "queueing/snapshot.h"

namespace troupe::queueing {

// Decayed usage is an exponentially weighted moving average of a queue's allocation,
// with a half-life: after `elapsed` seconds during which the queue held `allocated`,
//   usage' = allocated + (usage - allocated) * 2^(-elapsed / half_life)
// so a queue that just held a lot keeps a high usage for about a half-life after it
// stops, and one that held nothing decays toward zero. Same units as allocation.
// A half-life <= 0 means no memory: usage' = allocated.
ResourceVector advanceUsage(const ResourceVector& usage, const ResourceVector& allocated,
                            Seconds elapsed, Seconds half_life);

}  // namespace troupe::queueing
