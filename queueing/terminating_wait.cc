#include "queueing/terminating_wait.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "queueing/gang_placer.h"
#include "queueing/statement.h"

namespace troupe::queueing {

void releaseUnclaimedTerminating(EngineState& st, Statement& stmt) {
  st.terminating.forEachUnclaimed(
      [&](NodeId n, const HeldCapacity& part) { stmt.release(n, part); });
}

std::optional<TerminatingWait> waitForTerminating(EngineState& st, GangId g,
                                                  const std::vector<std::int32_t>& counts) {
  if (st.terminating.empty()) return std::nullopt;
  std::map<NodeId, HeldCapacity> counted_on;  // the unclaimed terminating capacity, by node
  Placement placed;
  {
    Statement stmt(st);
    st.terminating.forEachUnclaimed([&](NodeId n, const HeldCapacity& part) {
      stmt.release(n, part);
      counted_on.emplace(n, part);
    });
    if (counted_on.empty()) return std::nullopt;
    PlaceOptions o;
    o.self = g;
    placed = placeGang(st, g, counts, o);
  }  // rolled back: the terminating pods hold their capacity again
  if (!placed.ok) return std::nullopt;

  // What the placement takes on each node. A pod's share of a GPU is pledged by itself:
  // terminating pods never give a shared GPU back (terminatingPart), so it comes from free
  // capacity alone.
  std::map<NodeId, HeldCapacity> takes;
  TerminatingWait wait;
  for (const Pod& pod : placed.pods) {
    HeldCapacity& t = takes[pod.node];
    t.requests += st.requestOf(g, pod.pod_set);
    if (pod.gpu_milli > 0)
      wait.pledges.push_back(Pledge{pod.node, HeldCapacity{{}, pod.gpus, pod.gpu_milli}});
    else
      t.gpus |= pod.gpus;
  }
  std::vector<std::pair<NodeId, HeldCapacity>> claims;
  for (const auto& [node_id, take] : takes) {
    const NodeId n = node_id;  // a lambda below captures it (not a structured binding)
    const NodeState& node = st.nodes[n];
    auto it = counted_on.find(n);
    const HeldCapacity part = it == counted_on.end() ? HeldCapacity{} : it->second;
    HeldCapacity claim;
    if ((take.gpus & part.gpus) != 0 || !take.requests.fitsIn(node.free)) {
      // It needs what terminates here: count on that first, and on free capacity for the
      // rest (placement fitted in both together, so the rest is free).
      claim.gpus = take.gpus & part.gpus;
      claim.requests = ResourceVector::min(take.requests, part.requests);
      claims.emplace_back(n, claim);
      for (GangId r : node.gangs) {
        const GangState& rs = st.gangs[r];
        if (rs.terminating == 0) continue;
        if (std::any_of(rs.pods.begin(), rs.pods.end(),
                        [&](const Pod& p) { return p.terminating && p.node == n; }))
          wait.gangs.push_back(r);
      }
    }
    const HeldCapacity pledge{take.requests - claim.requests, take.gpus & ~claim.gpus};
    if (!pledge.empty()) wait.pledges.push_back(Pledge{n, pledge});
  }
  if (claims.empty()) return std::nullopt;  // it fits on free capacity alone
  for (const auto& [n, claim] : claims) st.terminating.claim(n, claim);
  for (const Pledge& p : wait.pledges)
    st.takeOnNode(p.node, p.held.requests, p.held.gpus, p.held.gpu_milli);
  std::sort(wait.gangs.begin(), wait.gangs.end(),
            [&](GangId a, GangId b) { return st.gangName(a) < st.gangName(b); });
  wait.gangs.erase(std::unique(wait.gangs.begin(), wait.gangs.end()), wait.gangs.end());
  return wait;
}

std::string describeTerminatingWait(const EngineState& st, const std::vector<GangId>& gangs) {
  std::vector<std::string> names;
  names.reserve(gangs.size());
  for (GangId g : gangs) names.push_back(st.gangName(g));
  return fmt::format("waiting for the pods of {} to terminate: they hold capacity it needs",
                     fmt::join(names, ", "));
}

}  // namespace troupe::queueing
