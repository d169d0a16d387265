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

// A plan of g on the cluster as if every running pod had ended, freest nodes first,
// outside the reservations already marked.
Placement planReservation(EngineState& st, GangId g, const std::vector<std::int32_t>& counts) {
  PlaceOptions o;
  o.self = g;
  o.empty_cluster = true;
  return placeGang(st, g, counts, o);
}

// The nodes of a plan, sorted.
std::vector<NodeId> nodesOf(const Placement& p) {
  std::vector<NodeId> nodes;
  for (const Pod& pod : p.pods) nodes.push_back(pod.node);
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  return nodes;
}

// Each pod set of g at its min_count: what a reservation is planned for.
std::vector<std::int32_t> minCounts(const GangState& gs) {
  std::vector<std::int32_t> c;
  for (const auto& ps : gs.spec.pod_sets) c.push_back(ps.min_count);
  return c;
}

}  // namespace

// A reservation is a plan, not a hold on the nodes it was first given: each one is
// planned again, earliest granted first, on the nodes freest now (as Slurm's backfill
// plans its top jobs afresh at every pass). Its gang then collects the capacity that frees
// first wherever it frees, instead of waiting for the longest job on nodes picked when it
// starved while the rest of the cluster fills with backfill. The freed room of a
// reservation keeps it among the freest nodes, so it moves only when other nodes have freed
// as much or more. With no capacity released
// since the last plan (no pod ended or was evicted, no node or reservation changed),
// capacity only shrank, and only on nodes no reservation holds (others may not use them):
// the plan stands, and is not made again. After a release, a reservation whose plan
// provably stands (ReservationPlans::holds) is not planned again either.
void restoreReservations(EngineState& st, AnswerMemo& memo, Seconds now) {
  for (NodeState& n : st.nodes) n.reserved_for = kNoGang;
  const bool released = st.reservations_planned_at != st.versions.release;
  ReservationPlans& plans = memo.reservationPlans();
  std::vector<Reservation> kept;
  std::vector<GangId> ahead;
  bool moved = false;
  for (Reservation& r : st.reservations) {
    if (r.gang == kNoGang) continue;
    const GangState& gs = st.gangs[r.gang];
    if (!gs.present || gs.running || gs.queue < 0) continue;
    if (released && (moved || !st.policy.keep_reservation_plans || !plans.holds(st, r, ahead))) {
      const Placement p = planReservation(st, r.gang, minCounts(gs));
      if (!p.ok) continue;  // no room left outside the earlier reservations
      std::vector<NodeId> nodes = nodesOf(p);
      plans.planned(st, r.gang, nodes, p, ahead);
      moved = moved || nodes != r.nodes;
      r.nodes = std::move(nodes);
    }
    r.shadow_time = shadowTime(st, r.nodes, now);
    markReservation(st, r);
    ahead.push_back(r.gang);
    kept.push_back(std::move(r));
  }
  if (kept.size() != st.reservations.size()) ++st.versions.reservations;
  // Nodes a reservation left are open to others again.
  if (kept.size() != st.reservations.size() || moved) ++st.versions.release;
  for (const Reservation& r : st.reservations)
    if (r.gang != kNoGang) st.gangs[r.gang].holds_reservation = false;
  for (const Reservation& r : kept) st.gangs[r.gang].holds_reservation = true;
  st.reservations = std::move(kept);
  st.reservations_planned_at = st.versions.release;
  plans.keepOnly(st.reservations);
}

bool reserve(EngineState& st, GangId g, const std::vector<std::int32_t>& counts, Seconds now) {
  if (static_cast<int>(st.reservations.size()) >= st.policy.max_reservations) return false;
  // Policy::max_reservations_per_queue: one queue's starving gangs do not take every
  // reservation while another queue's starve without one.
  const QueueId q = st.gangs[g].queue;
  const auto held =
      std::count_if(st.reservations.begin(), st.reservations.end(),
                    [&](const Reservation& r) { return st.gangs[r.gang].queue == q; });
  if (held >= st.policy.max_reservations_per_queue) return false;
  Reservation r;
  r.gang = g;
  const Placement p = planReservation(st, g, counts);
  if (!p.ok) return false;
  r.nodes = nodesOf(p);
  r.shadow_time = shadowTime(st, r.nodes, now);
  markReservation(st, r);
  st.gangs[g].holds_reservation = true;
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
  st.gangs[g].holds_reservation = false;
  ++st.versions.release;  // its nodes are open to others again
  ++st.versions.reservations;
  memo.capacityMayHaveGrown(st);
}

}  // namespace troupe::queueing
