#include "controllers/admission_accounting.h"

#include "state/state_store.h"

namespace troupe::controllers {

Status accountPreemptions(state::StateStore& state, const std::vector<PreemptionNotice>& preempted,
                          std::int64_t now) {
  if (preempted.empty()) return {};
  return state.transaction([&]() -> Status {
    for (const auto& p : preempted)
      if (auto s = state.accounting().stopped(p.gang, now, state::StopReason::Preempted); !s)
        return s;
    return {};
  });
}

Status closeAdmissions(state::StateStore& state,
                       const std::vector<const state::AdmissionRecord*>& records,
                       const std::vector<AdmissionOutcome>& outcomes,
                       const ClusterSnapshot& cluster,
                       const std::map<std::string, std::int64_t>& submitted_at, std::int64_t now) {
  return state.transaction([&]() -> Status {
    auto& accounting = state.accounting();
    for (std::size_t i = 0; i < records.size(); ++i) {
      const auto& record = *records[i];
      if (outcomes[i] == AdmissionOutcome::NotJournaled) continue;
      if (auto s = state.journal().complete(record.gang); !s) return s;
      if (outcomes[i] != AdmissionOutcome::Bound) continue;
      const auto& gang = cluster.gangs.at(record.gang);
      std::int64_t gpus = 0;
      for (const auto& b : record.bindings) gpus += static_cast<std::int64_t>(b.gpus.size());
      if (gang.state == GangState::Running) {
        if (auto s =
                accounting.resized(record.gang, now, gpus + gang.bound_requests[queueing::kGpu]);
            !s)
          return s;
        continue;
      }
      auto submit = submitted_at.find(record.gang);
      if (auto s = accounting.submitted(record.gang, record.queue,
                                        submit == submitted_at.end() ? now : submit->second);
          !s)
        return s;
      if (auto s = accounting.started(record.gang, now, gpus); !s) return s;
    }
    return {};
  });
}

}  // namespace troupe::controllers
