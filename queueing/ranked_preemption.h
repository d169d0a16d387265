#pragma once

#include <vector>

#include "queueing/cycle_run.h"

namespace troupe::queueing {

// The step shared by the preemptive schedulers that rank every gang of the cluster,
// running or waiting, in one order (Tiresias' discretized LAS, SRTF), queues and quotas
// aside. `order` holds every present gang with a queue, best first.
//  1. Selection by GPU count, as those schedulers allocate: walking the order, a gang is
//     selected when its GPUs (a running gang's held, a waiting gang's full request) fit in
//     what the cluster's GPUs leave after the gangs selected before it; one that does not
//     is passed over and the walk goes on (smaller gangs after it may fit).
//  2. Running gangs not selected are evicted (Preempted), named after the first selected
//     waiting gang: the capacity the selection counts on.
//  3. Selected waiting gangs are placed in order, all pods at once, on free capacity; one
//     that does not fit there (fragmentation, topology) waits with NoPlacement. A waiting
//     gang not selected waits with NoPlacement, or, when a selected gang found no room and
//     so leaves the GPUs counted for it idle, with BlockedByQueueHead naming the first
//     such gang: no gang passes the order into them. A gang evicted in this cycle is not
//     placed again in it.
void runByRank(CycleRun& run, const std::vector<GangId>& order);

}  // namespace troupe::queueing
