#include "queueing/fifo_policy.h"

#include <string>
#include <vector>

#include "queueing/gang_fit.h"

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
    const GangState& gs = st.gangs[g];
    Why why = run.baseWhy(g);
    if (!head.empty()) {
      why.reason = PendingReason::BlockedByQueueHead;
      why.blocking = head;
      run.setWhy(g, why);
      continue;
    }
    PlaceOptions o;
    o.self = g;
    std::vector<std::int32_t> full, least;
    for (const auto& ps : gs.spec.pod_sets) {
      full.push_back(ps.count);
      least.push_back(ps.min_count);
    }
    // Placed afresh, not as the memo remembers: the head's explanation names the largest
    // free domain as it is now.
    auto place = [&](const std::vector<std::int32_t>& counts) {
      return placeGang(st, g, counts, o);
    };
    if (auto pods = fitGang(st, run.memo(), g, least, full, place, why)) {
      run.admit(g, std::move(*pods));
      continue;
    }
    namePlacementShortage(gs, why);
    run.setWhy(g, why);
    head = gs.spec.name;
  }
}

}  // namespace troupe::queueing
