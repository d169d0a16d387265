#pragma once

#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include "queueing/gang_state.h"
#include "queueing/ids.h"
#include "queueing/pending_list.h"
#include "queueing/placement_memo.h"
#include "queueing/resource_vector.h"
#include "queueing/snapshot.h"

namespace troupe::queueing {

struct QueueState {
  QueueSpec spec;
  bool present = true;
  QueueId parent = -1;
  std::vector<QueueId> children;
  std::uint32_t rank = 0;
  // Invariant: allocated = sum of `held` over running gangs in this queue's subtree.
  ResourceVector allocated;
  // Bumped with every change of `allocated` (EngineState::addAllocated).
  std::uint64_t allocation_changes = 0;
  // Leaf: sum of full_request over its pending and running gangs.
  ResourceVector demand;
  ResourceVector fair_share;
  PendingList pending;
  std::set<GangId, NameOrder> running;
  // Set to a new StateVersions::running whenever `running`, the pods of one of its
  // gangs or its spec change (admission, eviction, resize, removal, upsertQueue): caches
  // of what its running gangs offer compare it.
  std::uint64_t running_version = 0;
  // Set by every change of its gangs or its own allocation (and whenever it must be
  // examined again: its spec, the nodes, a gang of it evicted); cleared when the cycle
  // examines it. A queue that is not dirty may be skipped (answer_memo.h).
  bool dirty = true;
  // Bit r set: spec.limit[r] is finite. Every gang tried asks its path's limits, most of
  // them unlimited in most resources (limitedSlots(), set with the spec).
  std::uint32_t limited_slots = 0;
  bool leaf() const { return children.empty(); }
};

static_assert(kMaxResources <= 32, "QueueState::limited_slots holds one bit per resource");

// The resources `spec` limits, one bit per slot.
inline std::uint32_t limitedSlots(const QueueSpec& spec) {
  std::uint32_t out = 0;
  for (std::size_t r = 0; r < kMaxResources; ++r)
    if (spec.limit[r] < ResourceVector::kUnlimited) out |= 1u << r;
  return out;
}

}  // namespace troupe::queueing
