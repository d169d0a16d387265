#pragma once

#include <map>
#include <string>
#include <vector>

#include "controllers/cluster_snapshot.h"
#include "queueing/resource_vector.h"
#include "state/admission_journal.h"

namespace troupe::controllers {

// What each queue holds once a cycle's bindings are done, as the pods show it: the
// requests of every bound pod of its gangs (terminating ones included: a pod holds its
// GPUs until it is gone) plus the pods bound this cycle, each queue with its children's.
//
// The engine's numbers after a cycle assume its decisions carried out: a victim's pods
// gone at once, a preemptor bound at once. Until its victims have terminated, neither is
// true, and a queue's status and decayed usage read from them would drift, the victim's
// queue low and the preemptor's high, for as long as the grace periods run.
std::map<std::string, queueing::ResourceVector> boundAllocation(
    const ClusterSnapshot& cluster, const std::vector<const state::AdmissionRecord*>& bound);

}  // namespace troupe::controllers
