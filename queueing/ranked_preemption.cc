#include "queueing/ranked_preemption.h"

#include <cstdint>
#include <string>

#include "queueing/gang_fit.h"

namespace troupe::queueing {
void runByRank(CycleRun& run, const std::vector<GangId>& order) {
  EngineState& st = run.state();
  std::int64_t left = st.usable_capacity[kGpu];
  std::vector<GangId> admit, evict;
  std::vector<GangId> passed;  // waiting gangs not selected
  for (GangId g : order) {
    const GangState& gs = st.gangs[g];
    const std::int64_t need = gs.running ? gs.held[kGpu] : gs.full_request[kGpu];
    // A gang no node or domain could ever hold counts for nothing (it waits Inadmissible).
    const bool selected =
        need <= left && (gs.running || run.memo().fitsEver(st, g, fullCounts(gs)));
    if (selected) left -= need;
    if (gs.running) {
      if (!selected) evict.push_back(g);
    } else {
      (selected ? admit : passed).push_back(g);
    }
  }
  if (!evict.empty() && !admit.empty()) {
    std::vector<Victim> victims;
    for (GangId v : evict) {
      if (!st.gangs[v].spec.preemptible || st.gangs[v].terminating > 0) continue;
      victims.push_back(Victim{v, true, {}, PreemptionReason::WithinQueue});
    }
    if (!victims.empty()) run.preemptVictims(admit.front(), victims);
  }
  // The first selected gang that found no room: the GPUs the selection counted for it stay
  // idle, and the gangs passed over wait behind it.
  std::string unplaced;
  for (GangId g : admit) {
    const GangState& gs = st.gangs[g];
    Why why = run.baseWhy(g);
    if (gs.evicted_cycle == st.cycle) continue;  // explained as Preempted
    const auto counts = fullCounts(gs);
    PlaceOptions o;
    o.self = g;
    Placement p = placeGang(st, g, counts, o);
    if (p.ok) {
      run.admit(g, std::move(p.pods));
      continue;
    }
    why.reason = run.memo().fitsEver(st, g, counts) ? PendingReason::NoPlacement
                                                    : PendingReason::Inadmissible;
    why.level = p.level;
    why.domain = p.domain;
    why.domain_pods = p.domain_pods;
    namePlacementShortage(gs, why);
    if (why.reason != PendingReason::Inadmissible && unplaced.empty()) unplaced = gs.spec.name;
    run.setWhy(g, why);
  }
  for (GangId g : passed) {
    const GangState& gs = st.gangs[g];
    if (gs.evicted_cycle == st.cycle) continue;
    Why why = run.baseWhy(g);
    why.reason = unplaced.empty() ? PendingReason::NoPlacement : PendingReason::BlockedByQueueHead;
    why.blocking = unplaced;
    run.setWhy(g, why);
  }
}

}  // namespace troupe::queueing
