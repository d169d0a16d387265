#include "queueing/reservation_plans.h"

#include <algorithm>

namespace troupe::queueing {

const ReservationPlans::Plan* ReservationPlans::find(GangId g) const {
  for (const Plan& p : plans_)
    if (p.gang == g) return &p;
  return nullptr;
}

void ReservationPlans::planned(EngineState& st, GangId g, const std::vector<NodeId>& nodes,
                               const Placement& placement, const std::vector<GangId>& ahead) {
  plans_.erase(
      std::remove_if(plans_.begin(), plans_.end(), [&](const Plan& p) { return p.gang == g; }),
      plans_.end());
  const GangState& gs = st.gangs[g];
  // A plan of several pod sets fills each in turn on what the others left: planned again
  // every time.
  if (gs.spec.pod_sets.size() != 1) return;
  Plan p;
  p.gang = g;
  p.nodes_version = st.versions.nodes;
  p.ahead = ahead;
  p.scope_level = placement.scope_level;
  p.scope_domain = placement.scope_domain;
  p.slot = packingSlot(st.requestOf(g, 0));
  p.room.reserve(nodes.size());
  for (NodeId n : nodes) p.room.push_back(st.nodes[n].free[p.slot]);
  plans_.push_back(std::move(p));
}

bool ReservationPlans::holds(EngineState& st, const Reservation& r,
                             const std::vector<GangId>& ahead) const {
  const Plan* p = find(r.gang);
  if (p == nullptr || p->nodes_version != st.versions.nodes || p->ahead != ahead ||
      p->room.size() != r.nodes.size())
    return false;
  // The plan's last node in its order: the least free, the latest by name among those.
  std::int64_t floor = 0;
  std::uint32_t last_rank = 0;
  for (std::size_t i = 0; i < r.nodes.size(); ++i) {
    const NodeState& node = st.nodes[r.nodes[i]];
    const std::int64_t room = node.free[p->slot];
    if (room != p->room[i]) return false;
    if (i == 0 || room < floor || (room == floor && node.rank > last_rank)) {
      floor = room;
      last_rank = node.rank;
    }
  }
  // Another candidate of the domain that would now come before that node. Candidates:
  // nodes the gang may use that no earlier reservation holds (those of later reservations
  // are not marked yet, as when it was planned).
  const ConstraintClass& cls = st.eligibility(st.gangs[r.gang].classes[0]);
  const auto before_last = [&](NodeId n) {
    const NodeState& node = st.nodes[n];
    const std::int64_t room = node.free[p->slot];
    return (room > floor || (room == floor && node.rank < last_rank)) && node.usable() &&
           (node.reserved_for == kNoGang || node.reserved_for == r.gang) &&
           !std::binary_search(r.nodes.begin(), r.nodes.end(), n);
  };
  if (p->scope_level < 0)
    return std::none_of(cls.eligible.begin(), cls.eligible.end(), before_last);
  for (NodeId n : st.domains[static_cast<std::size_t>(p->scope_level)]
                      .nodes[static_cast<std::size_t>(p->scope_domain)])
    if (n < cls.allows.size() && cls.allows[n] && before_last(n)) return false;
  return true;
}

void ReservationPlans::keepOnly(const std::vector<Reservation>& reservations) {
  plans_.erase(std::remove_if(plans_.begin(), plans_.end(),
                              [&](const Plan& p) {
                                return std::none_of(
                                    reservations.begin(), reservations.end(),
                                    [&](const Reservation& r) { return r.gang == p.gang; });
                              }),
               plans_.end());
}

}  // namespace troupe::queueing
