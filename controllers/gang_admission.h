#pragma once

#include <vector>

#include "state/admission_journal.h"

namespace troupe::state {
class StateStore;
}

// Carrying out one cycle's gang admissions: every record is journaled, in one transaction,
// before the first binding of any gang; then the pods of every gang are bound at once, so
// the server's group commits share their writes; a gang with a failed binding is rolled
// back whole (its bound pods deleted, their owners recreate them unbound). The records stay
// open for the caller to close with the accounting they lead to
// (controllers/admission_accounting.h).
namespace troupe::controllers {

class ClusterWriter;

enum class AdmissionOutcome {
  NotJournaled,  // not admitted: its journal record could not be written
  RolledBack,    // a binding failed; the pods bound were deleted again
  Bound,         // every pod bound
};

// One outcome per record, in order.
std::vector<AdmissionOutcome> admitGangs(const std::vector<const state::AdmissionRecord*>& records,
                                         state::StateStore& state, ClusterWriter& writer);

}  // namespace troupe::controllers
