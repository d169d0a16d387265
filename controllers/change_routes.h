#pragma once

namespace troupe::kube {
class WorkQueue;
}

// Where each object change goes: the reconciles it queues (TrainingJobs, PodGroups) and
// whether it asks for a scheduling cycle. Adds and deletes of what a cycle reads always
// ask for one; an update only when it changes what the cycle reads
// (controllers/scheduling_inputs.h).
namespace troupe::controllers {

class CycleRequest;
class InformerCaches;

// Adds the handlers to `caches`, before they start.
void routeChanges(InformerCaches& caches, kube::WorkQueue& queue, CycleRequest& cycle);

}  // namespace troupe::controllers
