#pragma once

#include "admission/queue_forest.h"
#include "controllers/object_list.h"

namespace troupe::controllers {

// The Queue objects as admission's rule book reads them (admission/queue_forest.h): the
// tree, its leaves, and the queues that cannot take jobs with the reason, so that a queue
// that got in breaking a rule (written before the rule, or while the webhook was down)
// stops only itself and what sits under it.
admission::QueueForest queueForest(const ObjectList& queues);

}  // namespace troupe::controllers
