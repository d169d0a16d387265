#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

namespace troupe::queueing {

// Dense indexes into the engine's state vectors (EngineState::gangs, nodes, queues).
using GangId = std::uint32_t;
using NodeId = std::uint32_t;
using QueueId = std::int32_t;
inline constexpr GangId kNoGang = std::numeric_limits<GangId>::max();

// A time no cycle reaches (in Seconds, snapshot.h): a deadline that never comes.
inline constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();

// Topology levels the engine indexes (Policy::topology_levels beyond these are ignored).
inline constexpr std::size_t kMaxLevels = 4;

// The level a quota check names when the cluster binds rather than a queue: what the
// queues beside a gang's path keep of their guarantees (kept_guarantee.h) may leave too
// little of the cluster's free capacity for it.
inline constexpr QueueId kClusterLevel = -1;
// No level binds.
inline constexpr QueueId kNoQuotaLevel = -2;

}  // namespace troupe::queueing
