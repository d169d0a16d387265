#include "queueing/elastic_growth.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "queueing/gang_placer.h"
#include "queueing/queue_limits.h"
#include "queueing/queue_turn.h"

namespace troupe::queueing {
namespace {

void growOne(CycleRun& run, GangId g) {
  // A gang shrunk for a reclaim this cycle does not grow back in the same cycle.
  if (run.shrunk(g)) return;
  EngineState& st = run.state();
  GangState& gs = st.gangs[g];
  std::vector<Pod> added;
  for (std::size_t ps = 0; ps < gs.spec.pod_sets.size(); ++ps) {
    const ResourceVector& req = gs.spec.pod_sets[ps].shape->requests;
    std::int32_t extra = gs.spec.pod_sets[ps].count - gs.counts[ps];
    while (extra > 0 && !withinLimits(st, gs.queue, req * extra)) --extra;
    PlaceOptions o;
    o.self = g;
    if (gs.spec.topology.mode == TopologyMode::Required && !gs.pods.empty()) {
      o.only_level = st.levelIndex(gs.spec.topology.level);
      o.only_domain = st.nodes[gs.pods.front().node].domain[static_cast<std::size_t>(o.only_level)];
    }
    for (; extra > 0; extra /= 2) {
      std::vector<std::int32_t> counts(gs.spec.pod_sets.size(), 0);
      counts[ps] = extra;
      Placement p = placeGang(st, g, counts, o);
      if (!p.ok) continue;
      st.addPods(g, p.pods);
      added.insert(added.end(), p.pods.begin(), p.pods.end());
      break;
    }
  }
  if (!added.empty()) run.grew(g, std::move(added));
}

}  // namespace

void growElasticGangs(CycleRun& run) {
  const EngineState& st = run.state();
  std::vector<std::pair<QueueTurn, GangId>> growers;
  for (QueueId q : st.queues_by_rank) {
    const QueueState& qs = st.queues[static_cast<std::size_t>(q)];
    if (!qs.leaf()) continue;
    for (GangId g : qs.running) {
      const GangState& gs = st.gangs[g];
      bool below = false;
      for (std::size_t i = 0; i < gs.counts.size(); ++i)
        below = below || gs.counts[i] < gs.spec.pod_sets[i].count;
      if (below) growers.emplace_back(queueTurn(st, q), g);
    }
  }
  PendingOrder by_gang{&st.gangs};
  std::sort(growers.begin(), growers.end(), [&](const auto& a, const auto& b) {
    if (a.first > b.first) return false;
    if (b.first > a.first) return true;
    return by_gang(a.second, b.second);
  });
  for (const auto& [turn, g] : growers) growOne(run, g);
}

}  // namespace troupe::queueing
