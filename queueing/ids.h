#pragma once

#include <cstdint>
#include <limits>

namespace troupe::queueing {

// Dense indexes into the engine's state vectors (EngineState::gangs, nodes, queues).
using GangId = std::uint32_t;
using NodeId = std::uint32_t;
using QueueId = std::int32_t;
inline constexpr GangId kNoGang = std::numeric_limits<GangId>::max();

}  // namespace troupe::queueing
