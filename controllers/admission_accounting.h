#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/result.h"
#include "controllers/action_plan.h"
#include "controllers/cluster_snapshot.h"
#include "controllers/gang_admission.h"
#include "state/admission_journal.h"

namespace troupe::state {
class StateStore;
}

// What a cycle's preemptions and admissions write to the job accounting
// (state/job_accounting.h), each set in one transaction: every write of it is committed,
// or a failed one rolls back the whole set and the error is returned. None is lost
// silently.
namespace troupe::controllers {

// The preempted gangs stop running, for reason Preempted.
Status accountPreemptions(state::StateStore& state, const std::vector<PreemptionNotice>& preempted,
                          std::int64_t now);

// Closes the journal records of `records` (those journaled, by `outcomes`) with the
// accounting they lead to, in one commit: a gang bound whole is submitted and started (its
// submit time from `submitted_at`, else `now`), or resized when it was running already and
// grew. After a crash, or when this fails, either both are there or the records stay open
// and journal recovery (controllers/journal_recovery.h) closes them.
Status closeAdmissions(state::StateStore& state,
                       const std::vector<const state::AdmissionRecord*>& records,
                       const std::vector<AdmissionOutcome>& outcomes,
                       const ClusterSnapshot& cluster,
                       const std::map<std::string, std::int64_t>& submitted_at, std::int64_t now);

}  // namespace troupe::controllers
