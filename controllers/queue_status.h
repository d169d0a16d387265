#pragma once

#include <cstdint>
#include <optional>

#include <nlohmann/json.hpp>

#include "admission/queue_forest.h"
#include "queueing/decisions.h"

namespace troupe::controllers {

struct QueueCounts {
  std::int32_t pending = 0;   // waiting to be admitted
  std::int32_t admitted = 0;  // bound, not all running yet
  std::int32_t running = 0;
  std::int32_t inadmissible = 0;  // pending, but can never be admitted as things are
};

// The status a Queue should have after a cycle: allocated and fairShare as resource
// lists, the gang counts (each with its subtree's), and the Ready condition: True while the
// queue can take jobs, False with the reason and the rule it breaks
// (admission/queue_forest.h) when it cannot.
// The caller writes it only when it differs from the current one.
nlohmann::json renderQueueStatus(const nlohmann::json& queue,
                                 const std::optional<queueing::QueueStatus>& computed,
                                 const queueing::ResourceNames& names, const QueueCounts& counts,
                                 const admission::QueueProblem* problem, std::int64_t now);

}  // namespace troupe::controllers
