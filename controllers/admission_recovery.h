#pragma once

#include <string>
#include <vector>

#include "controllers/action_plan.h"
#include "controllers/cluster_snapshot.h"
#include "state/admission_journal.h"

namespace troupe::controllers {

// What to do, at start-up, with an admission the journal still holds open (the operator
// stopped between a gang's first and last binding):
// - finish it when every pod of the record is still there, live, and either unbound or
//   bound where the record says, and every node of the record is there and Ready: the
//   remaining bindings are carried out;
// - otherwise roll it back: every pod of the record already bound is deleted (its owner
//   recreates it unbound), so no gang is ever left half bound.
// Either way the record is then closed.
struct RecoveryStep {
  std::string gang;
  bool finish = false;
  std::vector<state::PlannedBinding> remaining;  // finish: the bindings still to do
  std::vector<PodDeletion> deletions;            // roll back: the bound pods to delete
  std::string reason;                            // why it was rolled back
};

std::vector<RecoveryStep> planRecovery(const std::vector<state::AdmissionRecord>& open,
                                       const ClusterSnapshot& cluster);

}  // namespace troupe::controllers
