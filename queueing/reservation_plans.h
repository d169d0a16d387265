#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "queueing/engine_state.h"
#include "queueing/gang_placer.h"

namespace troupe::queueing {

// Each reservation's last plan and what it was made on, so that a reservation is planned
// again only when that would move it (reservations.h, restoreReservations;
// Policy::keep_reservation_plans).
//
// A reservation of a gang of one pod set is planned on the cluster as if every running pod
// had ended: in the smallest domain that could hold the gang (chosen from the nodes'
// allocatable capacity, which eligibility, the nodes and the reservations planned before it
// decide), on the freest nodes there, ties by name (gang_placer.h). The plan P it got is the
// prefix of that order the gang fills, so every other candidate node of the domain came
// after P's last node m: less free, or as free and later by name. Planned again, it gets P
// once more while
//  - no node changed (StateVersions::nodes) and the reservations planned before it are the
//    same, on the same nodes: the domain and the candidates are as they were;
//  - the free capacity of each node of P is as it was: their order, and so the prefix the
//    gang fills, is as it was;
//  - no other candidate node of the domain has come to precede m: none is freer, or as
//    free and earlier by name.
// Checking that reads P's nodes and the domain's other nodes' free capacity, instead of
// planning: a placement's scan of every eligible node and a sort of the domain's.
class ReservationPlans {
 public:
  // The reservation of gang g, on `nodes`, was just planned: `placement` is the plan,
  // `ahead` the gangs of the reservations planned before it, in order.
  void planned(EngineState& st, GangId g, const std::vector<NodeId>& nodes,
               const Placement& placement, const std::vector<GangId>& ahead);
  // Whether planning reservation `r` again now, after the reservations of `ahead` and with
  // none of them moved in this pass, would give it the nodes it holds.
  bool holds(EngineState& st, const Reservation& r, const std::vector<GangId>& ahead) const;
  // Forgets the plans of gangs that hold none of `reservations`.
  void keepOnly(const std::vector<Reservation>& reservations);

 private:
  struct Plan {
    GangId gang = kNoGang;
    std::uint64_t nodes_version = 0;
    std::vector<GangId> ahead;
    std::int32_t scope_level = -1;   // the domain the plan placed the pods in,
    std::int32_t scope_domain = -1;  // -1: the cluster
    std::size_t slot = 0;            // the resource nodes are ordered by (packingSlot)
    // Free capacity in `slot` of each node of the reservation, in its (sorted) order.
    std::vector<std::int64_t> room;
  };
  const Plan* find(GangId g) const;

  // Plans of reservations of one-pod-set gangs, a handful at most
  // (Policy::max_reservations).
  std::vector<Plan> plans_;
};

}  // namespace troupe::queueing
