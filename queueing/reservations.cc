#include "queueing/reservations.h"

#include <algorithm>

#include "queueing/gang_placer.h"

namespace troupe::queueing {
namespace {

// When the running gangs on `nodes` are all expected to have ended: the latest start +
// runtime estimate among them (not before now), kNever if one has no estimate.
Seconds shadowTime(const EngineState& st, const std::vector<NodeId>& nodes, Seconds now) {
  // The gangs on each node come from its index (NodeState::gangs), so a reservation
  // costs its nodes' pods, not a pass over every running pod.
  Seconds shadow = now;
  for (NodeId n : nodes) {
    for (GangId r : st.nodes[n].gangs) {
      const GangState& rs = st.gangs[r];
      if (rs.queue < 0) continue;  // as the queues' running sets hold them
      shadow = std::max(
          shadow, rs.spec.runtime_estimate ? rs.start_time + *rs.spec.runtime_estimate : kNever);
    }
  }
  return shadow;
}

void markReservation(EngineState& st, const Reservation& r) {
  for (NodeId n : r.nodes) {
    st.nodes[n].reserved_for = r.gang;
    st.nodes[n].reserved_until = r.shadow_time;
  }
}

}  // namespace

void restoreReservations(EngineState& st, Seconds now) {
  for (NodeState& n : st.nodes) n.reserved_for = kNoGang;
  std::vector<Reservation> kept;
  for (Reservation& r : st.reservations) {
    if (r.gang == kNoGang) continue;
    const GangState& gs = st.gangs[r.gang];
    if (!gs.present || gs.running || gs.queue < 0) continue;
    const bool nodes_ok =
        std::all_of(r.nodes.begin(), r.nodes.end(), [&](NodeId n) { return st.nodes[n].usable(); });
    if (!nodes_ok) continue;
    r.shadow_time = shadowTime(st, r.nodes, now);
    markReservation(st, r);
    kept.push_back(std::move(r));
  }
  if (kept.size() != st.reservations.size()) {
    ++st.versions.release;
    ++st.versions.reservations;
  }
  st.reservations = std::move(kept);
}

bool reserve(EngineState& st, GangId g, const std::vector<std::int32_t>& counts, Seconds now) {
  if (static_cast<int>(st.reservations.size()) >= st.policy.max_reservations) return false;
  PlaceOptions o;
  o.self = g;
  o.empty_cluster = true;
  const Placement p = placeGang(st, g, counts, o);
  if (!p.ok) return false;
  Reservation r;
  r.gang = g;
  for (const Pod& pod : p.pods) r.nodes.push_back(pod.node);
  std::sort(r.nodes.begin(), r.nodes.end());
  r.nodes.erase(std::unique(r.nodes.begin(), r.nodes.end()), r.nodes.end());
  r.shadow_time = shadowTime(st, r.nodes, now);
  markReservation(st, r);
  st.reservations.push_back(std::move(r));
  return true;
}

void dropReservation(EngineState& st, AnswerMemo& memo, GangId g) {
  auto it = std::find_if(st.reservations.begin(), st.reservations.end(),
                         [&](const Reservation& r) { return r.gang == g; });
  if (it == st.reservations.end()) return;
  for (NodeId n : it->nodes)
    if (st.nodes[n].reserved_for == g) st.nodes[n].reserved_for = kNoGang;
  st.reservations.erase(it);
  ++st.versions.release;  // its nodes are open to others again
  ++st.versions.reservations;
  memo.capacityMayHaveGrown(st);
}

}  // namespace troupe::queueing
