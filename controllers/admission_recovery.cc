#include "controllers/admission_recovery.h"

#include <fmt/format.h>

namespace troupe::controllers {

std::vector<RecoveryStep> planRecovery(const std::vector<state::AdmissionRecord>& open,
                                       const ClusterSnapshot& cluster) {
  std::vector<RecoveryStep> steps;
  for (const auto& record : open) {
    RecoveryStep step;
    step.gang = record.gang;
    auto it = cluster.gangs.find(record.gang);
    const Gang* gang = it == cluster.gangs.end() ? nullptr : &it->second;
    std::string problem;
    if (!gang) {
      problem = "the PodGroup is gone";
    } else if (gang->state == GangState::Finished) {
      problem = "the gang has finished";
    }
    for (const auto& b : record.bindings) {
      if (!problem.empty()) break;
      const GangPod* pod = nullptr;
      for (const auto& p : gang->pods)
        if (p.ns() == b.ns && p.name() == b.pod) pod = &p;
      if (!pod || pod->deleting()) {
        problem = fmt::format("pod {}/{} is gone", b.ns, b.pod);
      } else if (pod->bound() && pod->node() != b.node) {
        problem = fmt::format("pod {}/{} is bound to {}, not {}", b.ns, b.pod, pod->node(), b.node);
      } else if (!pod->bound()) {
        bool node_ok = false;
        for (const auto& n : cluster.snapshot.nodes)
          if (n.name == b.node) node_ok = n.ready && !n.unschedulable;
        if (!node_ok) problem = fmt::format("node {} is gone or not Ready", b.node);
        step.remaining.push_back(b);
      }
    }
    if (problem.empty()) {
      step.finish = true;
    } else {
      step.remaining.clear();
      step.reason = problem;
      if (gang) {
        for (const auto& b : record.bindings) {
          for (const auto& p : gang->pods) {
            if (p.ns() == b.ns && p.name() == b.pod && p.bound() && !p.deleting())
              step.deletions.push_back({p.ns(), p.name(), p.uid(), record.gang, "RolledBack"});
          }
        }
      }
    }
    steps.push_back(std::move(step));
  }
  return steps;
}

}  // namespace troupe::controllers
