#pragma once

#include <map>
#include <string>
#include <vector>

#include "controllers/cluster_snapshot.h"
#include "queueing/decisions.h"
#include "state/admission_journal.h"

namespace troupe::controllers {

struct PodRef;

// The pods each gang's bindings must see gone from the API before they are carried out,
// by gang.
//
// The engine assumes its own decisions at once: a gang it preempts or shrinks frees its
// capacity within the cycle, for its preemptor and for any gang placed after it, while
// its pods keep that capacity until they are gone (a terminating pod's containers may use
// its GPUs for its whole grace period). So a binding onto a node where this cycle's
// decisions preempted or shrank pods waits for those pods (deleted now, terminating from
// before, or left in place by a decision the plan skipped). Pods that were terminating
// before the cycle hold their capacity in the engine, which places nothing on it; a
// binding onto one of their GPU indices all the same waits for them too. Everything
// else binds at once: the engine placed it on capacity no pod of the snapshot holds.
//
// The cost is the pods those decisions name and the pods being bound, never a pass over
// every pod of the cluster. `bindings` are the plan's admission and growth records.
std::map<std::string, std::vector<PodRef>> podsInTheWay(
    const queueing::Decisions& decisions, const ClusterSnapshot& cluster,
    const std::vector<state::AdmissionRecord>& bindings);

}  // namespace troupe::controllers
