#pragma once

#include <functional>

#include "controllers/cluster_snapshot.h"

namespace troupe::state {
class AdmissionJournal;
}

// Carrying out what admission recovery plans (controllers/admission_recovery.h) for every
// admission the journal still holds open: a new leader's first step, since the leader
// before may have stopped between a gang's first and last binding, and the scheduler
// loop's after a cycle failed to close its records. Each gang is finished (its remaining
// pods bound) or rolled back (its bound pods deleted), never left half bound; then its
// record is closed.
namespace troupe::controllers {

class ClusterWriter;

// `journal` is read and written as is: the caller holds the state store. `snapshot` is
// built only when a record is open. True when no record is left open (a failed read or
// close leaves some for a later recovery).
bool recoverAdmissions(state::AdmissionJournal& journal, ClusterWriter& writer,
                       const std::function<ClusterSnapshot()>& snapshot);

}  // namespace troupe::controllers
