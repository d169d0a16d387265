#include "queueing/fifo_policy.h"

#include <string>
#include <vector>

#include "queueing/gang_placer.h"
#include "queueing/queue_limits.h"

namespace troupe::queueing {

bool FifoPolicy::SubmitOrder::operator()(GangId a, GangId b) const {
  const GangSpec& x = (*gangs)[a].spec;
  const GangSpec& y = (*gangs)[b].spec;
  if (x.submit_time != y.submit_time) return x.submit_time < y.submit_time;
  return x.name < y.name;
}

void FifoPolicy::admit(CycleRun& run) {
  EngineState& st = run.state();
  const std::vector<GangId> order(order_.begin(), order_.end());  // admissions leave it
  std::string head;
  for (GangId g : order) {
    GangState& gs = st.gangs[g];
    Why why = run.baseWhy(g);
    if (!head.empty()) {
      why.reason = PendingReason::BlockedByQueueHead;
      why.blocking = head;
      run.setWhy(g, why);
      continue;
    }
    if (!withinLimits(st, gs.queue, gs.min_request)) {
      why.reason = PendingReason::QueueAtLimit;
      run.setWhy(g, why);
      head = gs.spec.name;
      continue;
    }
    PlaceOptions o;
    o.self = g;
    std::vector<std::int32_t> full, least;
    for (const auto& ps : gs.spec.pod_sets) {
      full.push_back(ps.count);
      least.push_back(ps.min_count);
    }
    if (full != least && withinLimits(st, gs.queue, gs.full_request)) {
      Placement p = placeGang(st, g, full, o);
      if (p.ok) {
        run.admit(g, std::move(p.pods));
        continue;
      }
    }
    Placement p = placeGang(st, g, least, o);
    if (p.ok) {
      run.admit(g, std::move(p.pods));
      continue;
    }
    why.level = p.level;
    why.domain = p.domain;
    why.domain_pods = p.domain_pods;
    why.reason = run.memo().fitsEver(st, g, least) ? PendingReason::NoPlacement
                 : gs.spec.topology.mode == TopologyMode::Required
                     ? PendingReason::TopologyUnsatisfiable
                     : PendingReason::Unschedulable;
    run.setWhy(g, why);
    head = gs.spec.name;
  }
}

}  // namespace troupe::queueing
