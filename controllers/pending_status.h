#pragma once

#include <nlohmann/json.hpp>

#include "queueing/decisions.h"
#include "queueing/resource_vector.h"

namespace troupe::controllers {

// status.pending of a waiting gang (a TrainingJob's, or a PodGroup's of plain pods): the
// engine's explanation with the numbers (docs/api.md): reason, message, queue, the gang's
// request, the queue's numbers in the gang's dominant resource, and, when a limit binds
// (QueueAtLimit, Inadmissible for a limit), `limitedBy`: the level that binds (`queue`,
// absent for the cluster) and, in that resource, what it holds, what queues under it keep
// unlent of their guarantees, what the gang asks and the limit.
nlohmann::json renderPendingStatus(const queueing::PendingExplanation& e,
                                   const queueing::ResourceNames& names);

}  // namespace troupe::controllers
