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
// by gang: the pods that, as the snapshot shows them, still hold GPUs or resources the
// bindings' placements take.
//
// The engine assumes its own decisions at once: a gang it preempts or shrinks frees its
// capacity within the cycle, for its preemptor and for any gang placed after it. The pods
// keep that capacity until they are gone (a terminating pod's containers may still use its
// GPUs for its whole grace period), so a binding onto it waits. Only nodes where that can
// happen are checked: those of the pods this cycle's decisions preempt or shrink (deleted
// or not), and those of pods being deleted. Elsewhere the engine placed on capacity that no
// pod of the snapshot holds. A gang whose binding takes capacity held by a pod that is not
// leaving (or by pods outside the gangs, which have no name here) is listed too, with the
// pods it can name: it waits until a cycle decides again.
//
// `bindings` are the admission and growth records of one plan, in its order; a gang whose
// records all fit binds, and what it takes is no longer free for the records after it.
// `deleted` are the pods the plan deletes (they hold their capacity until gone).
std::map<std::string, std::vector<PodRef>> podsInTheWay(
    const queueing::Decisions& decisions, const ClusterSnapshot& cluster,
    const std::vector<state::AdmissionRecord>& bindings, const std::vector<PodRef>& deleted);

}  // namespace troupe::controllers
