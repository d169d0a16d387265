#pragma once

#include <cstdint>
#include <vector>

#include "queueing/engine_state.h"

namespace troupe::queueing {

// What capacity the placer may use.
struct PlaceOptions {
  GangId self = kNoGang;  // nodes reserved for this gang stay usable
  // A backfill candidate's expected end (now + runtime estimate): it may use nodes reserved
  // for others until their reservation's expected start. kNever: it may not.
  Seconds backfill_end = kNever;
  bool ignore_reservations = false;
  // Plan on allocatable, as if every running pod had ended (reservations, and the static
  // "could this ever fit" check). Nodes are then taken freest first.
  bool empty_cluster = false;
  // Only nodes of this domain (elastic growth keeps a gang where it runs). -1: any.
  std::int32_t only_level = -1;
  std::int32_t only_domain = -1;
};

struct Placement {
  bool ok = false;
  std::vector<Pod> pods;  // on success, the pods to start
  // The largest domain for the gang's first pod set at its topology level (or the cluster):
  // how many of its pods fit there. Filled for single-pod-set gangs.
  std::int32_t level = -1;
  std::int32_t domain = -1;
  std::int64_t domain_pods = 0;
  // On success, the domain the pods were placed in: its level and id; -1, -1 for the
  // whole cluster.
  std::int32_t scope_level = -1;
  std::int32_t scope_domain = -1;
};

// The resource by which nodes are ordered for a pod of `request` (packing, and freest first
// on an empty cluster): GPU when it asks for any, else CPU when it asks for any, else memory.
std::size_t packingSlot(const ResourceVector& request);

// Places `counts[i]` pods of each pod set of gang `g` on free capacity, all or nothing,
// without changing the state. Nodes must be usable and allowed by the pod's constraints.
// Topology: a required level keeps every pod inside one domain of that level; a
// preferred level (or none) tries the narrowest domain that holds the gang first, then
// wider levels, then the whole cluster. Among domains that hold it, the one with the
// least room (best fit), ties by name. Inside, nodes with the least free capacity come
// first (bin packing keeps whole nodes free for large gangs), ties by name (on an empty
// cluster the freest first); each pod's
// GPUs come from one NVLink island and NUMA node where possible (gpu_picker.h).
// Cost: one pass over the eligible nodes, plus a sort of the nodes that can take a pod.
Placement placeGang(EngineState& st, GangId g, const std::vector<std::int32_t>& counts,
                    const PlaceOptions& options);

// How many pods of one kind (constraint class, request, topology) fit on free capacity
// right now, for a gang that holds no reservation and has no runtime estimate: the most
// pods one domain of a required level holds, else the cluster's total. Exact: a one-shape
// gang of n pods is placed by placeGang iff n <= max_pods. One pass over the eligible nodes.
struct KindCapacity {
  std::int64_t max_pods = 0;
  std::int32_t level = -1;  // the largest domain at the kind's own level, for explanations
  std::int32_t domain = -1;
  std::int64_t domain_pods = 0;
};
KindCapacity kindCapacity(EngineState& st, std::int32_t cls, const ResourceVector& request,
                          std::int32_t gpu_milli, TopologyMode mode, std::int32_t level);

}  // namespace troupe::queueing
