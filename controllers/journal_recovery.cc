#include "controllers/journal_recovery.h"

#include <algorithm>

#include "common/log.h"
#include "controllers/admission_recovery.h"
#include "controllers/cluster_writer.h"
#include "state/admission_journal.h"

namespace troupe::controllers {

bool recoverAdmissions(state::AdmissionJournal& journal, ClusterWriter& writer,
                       const std::function<ClusterSnapshot()>& snapshot) {
  auto open = journal.open();
  if (!open) {
    log::error("journal read failed; half-bound gangs not recovered",
               {{"error", open.error().describe()}});
    return false;
  }
  if (open->empty()) return true;
  bool closed = true;
  const auto cluster = snapshot();
  for (const auto& step : planRecovery(*open, cluster)) {
    if (step.finish) {
      const auto bound = writer.bindAll(step.remaining);
      const bool ok = std::all_of(bound.begin(), bound.end(), [](char b) { return b != 0; });
      if (!ok) {
        for (const auto& g : cluster.gangs.at(step.gang).pods)
          if (g.bound()) writer.deletePod({g.ns(), g.name(), g.uid(), step.gang, "RolledBack"});
        for (const auto& b : step.remaining)
          if (auto uid = writer.assumed().boundByUs(b.ns + "/" + b.pod))
            writer.deletePod({b.ns, b.pod, *uid, step.gang, "RolledBack"});
      }
      log::info("recovered half-bound gang", {{"gang", step.gang}, {"finished", ok}});
    } else {
      for (const auto& d : step.deletions) writer.deletePod(d);
      log::info("rolled back half-bound gang", {{"gang", step.gang}, {"reason", step.reason}});
    }
    if (auto s = journal.complete(step.gang); !s) {
      log::error("journal close failed; the gang is recovered again later",
                 {{"gang", step.gang}, {"error", s.error().describe()}});
      closed = false;
    }
  }
  return closed;
}

}  // namespace troupe::controllers
