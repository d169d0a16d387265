#pragma once

#include <cstdint>
#include <vector>

#include "queueing/resource_vector.h"

namespace troupe::queueing {

// One node of the queue tree, as the fair-share computation sees it.
struct FairShareQueue {
  int parent = -1;  // index of the parent in the same vector, -1 for the root's children
  ResourceVector guaranteed;
  ResourceVector limit;
  ResourceVector lending_limit;
  std::int64_t over_quota_weight = 1;
  std::int32_t priority = 0;
  // Leaf: what its gangs want (running plus pending). Inner queues: ignored (the sum of
  // their children's is used).
  ResourceVector demand;
};

// Fair share per queue and resource, top-down water-filling (docs/fair-share.md):
// every queue first gets min(guaranteed, demand, limit); what is left at each level is
// lent to the siblings that still want more, in proportion to over_quota_weight (ties by
// priority, then index), never past a queue's limit or demand, and a queue's unused
// guaranteed is lent only up to its lending_limit. Queues must be ordered parents
// first; `capacity` is the whole cluster. Resources are computed independently, and the
// dominant resource is chosen when shares are compared (DominantShare below).
std::vector<ResourceVector> computeFairShares(const std::vector<FairShareQueue>& queues,
                                              const ResourceVector& capacity);

// max over resources with a positive fair share of allocated / fair_share; a resource
// allocated with zero fair share counts as `allocated` (very large). 0 when nothing is
// allocated.
double dominantShare(const ResourceVector& allocated, const ResourceVector& fair_share);

// How much of its guarantee a queue holds: max over the resources the guarantee names
// (a positive amount) of allocated / guaranteed. A queue guaranteed nothing holds only
// borrowed capacity: 0 when it holds nothing, infinity otherwise.
double guaranteeShare(const ResourceVector& allocated, const ResourceVector& guaranteed);

}  // namespace troupe::queueing
