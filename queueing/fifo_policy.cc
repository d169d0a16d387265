#include "queueing/fifo_policy.h"

#include <algorithm>
#include <optional>
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

namespace {

// Where g fits now, placed afresh, not as the memo remembers: the head's explanation
// names the largest free domain as it is now.
std::optional<std::vector<Pod>> fitAfresh(EngineState& st, CycleRun& run, GangId g, Why& why) {
  const GangState& gs = st.gangs[g];
  PlaceOptions o;
  o.self = g;
  std::vector<std::int32_t> full, least;
  for (const auto& ps : gs.spec.pod_sets) {
    full.push_back(ps.count);
    least.push_back(ps.min_count);
  }
  auto place = [&](const std::vector<std::int32_t>& counts) { return placeGang(st, g, counts, o); };
  return fitGang(st, run.memo(), g, least, full, place, why);
}

}  // namespace

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
    // A gang with alternatives takes its first way that fits, or waits for its first.
    const std::size_t ways = std::max<std::size_t>(gs.ways.size(), 1);
    std::optional<std::vector<Pod>> pods;
    for (std::size_t w = 0; w < ways && !pods; ++w) {
      if (!gs.ways.empty()) st.useWay(g, w);
      pods = fitAfresh(st, run, g, why);
    }
    if (pods) {
      run.admit(g, std::move(*pods));
      continue;
    }
    if (ways > 1) {
      st.useWay(g, 0);
      why = run.baseWhy(g);
      fitAfresh(st, run, g, why);
    }
    namePlacementShortage(gs, why);
    run.setWhy(g, why);
    head = gs.spec.name;
  }
}

}  // namespace troupe::queueing
