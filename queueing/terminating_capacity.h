#pragma once

#include <cstdint>
#include <map>

#include "queueing/ids.h"
#include "queueing/resource_vector.h"

namespace troupe::queueing {

// An amount of one node's capacity: resources and GPU indices (bit i = GPU i).
struct HeldCapacity {
  ResourceVector requests;
  std::uint64_t gpus = 0;
  // One pod's share of one GPU (Pod::gpu_milli): `gpus` is then that GPU, held in part.
  // Always 0 in a sum of several pods' capacity, which holds whole GPUs only.
  std::int32_t gpu_milli = 0;
  bool empty() const { return requests.isZero() && gpus == 0; }
};

// The capacity terminating pods hold (PodPlacement::terminating), node by node, and the
// part of it the gangs waiting for it in the current cycle count on.
//
// A terminating pod holds its node's resources and GPUs like any running pod (the node's
// free capacity excludes them), but its capacity is on its way back without anyone's
// action. A gang that fits once it is back waits for it rather than preempting others;
// within one cycle each part of it is counted on by one waiting gang only, the first in
// admission order, so that a later gang looks for room elsewhere instead of counting on
// the same GPUs twice.
class TerminatingCapacity {
 public:
  // A terminating pod starts or stops holding `pod` on node n.
  void add(NodeId n, const HeldCapacity& pod);
  void remove(NodeId n, const HeldCapacity& pod);

  bool empty() const { return by_node_.empty(); }
  // Visits each node with terminating capacity no waiting gang counted on yet this cycle,
  // by id, with that capacity.
  template <typename Visit>
  void forEachUnclaimed(Visit&& visit) const {
    for (const auto& [n, e] : by_node_) {
      const HeldCapacity part{e.held.requests - e.claimed.requests, e.held.gpus & ~e.claimed.gpus};
      if (!part.empty()) visit(n, part);
    }
  }
  // What node n's terminating pods hold that no waiting gang counted on yet this cycle.
  HeldCapacity unclaimed(NodeId n) const;
  // A waiting gang counts on `part` (within unclaimed(n)) for the rest of the cycle.
  void claim(NodeId n, const HeldCapacity& part);
  // A new cycle: every claim is forgotten.
  void forgetClaims();
  // Bumped whenever terminating capacity appears: a gang that could not fit before may
  // now wait for it instead.
  std::uint64_t version() const { return version_; }

 private:
  struct Entry {
    HeldCapacity held;     // the node's terminating pods, all together
    HeldCapacity claimed;  // counted on this cycle (within held)
    std::int32_t pods = 0;
  };
  // Ordered by node id: visits are deterministic.
  std::map<NodeId, Entry> by_node_;
  std::uint64_t version_ = 0;
};

}  // namespace troupe::queueing
