#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "controllers/action_plan.h"
#include "controllers/object_list.h"

// The TrainingJob controller's reconcile as a pure function: the job and what it owns,
// as the caches hold them, in; the writes that bring the world to the job's spec out.
// Level-triggered and idempotent: planning again on the result plans nothing new.
namespace troupe::controllers {

struct TrainingJobInputs {
  nlohmann::json job;
  std::optional<nlohmann::json> pod_group;  // the owned PodGroup, if it exists
  bool service_exists = false;
  ObjectList pods;  // pods owned by the job, shared with the caches
  std::int64_t now = 0;
};

struct TrainingJobPlan {
  std::vector<nlohmann::json> create;  // PodGroup, Service, Pods, in that order
  std::vector<PodDeletion> deletions;  // pods to delete
  nlohmann::json status;               // the status the job should have (pending kept)
  bool status_changed = false;
  bool delete_job = false;                    // ttlSecondsAfterFinished has passed
  std::optional<std::int64_t> requeue_after;  // seconds: backoff, TTL or first status
  std::vector<EventRecord> events;            // `gang` holds the job's key
};

// How it decides, in order:
// 1. A finished job (Succeeded, Failed) deletes its pods that still run and, once
//    ttlSecondsAfterFinished has passed since completedAt, asks to be deleted.
// 2. An invalid spec (replicas < 1, minReplicas outside [1, replicas], no queue) creates
//    nothing and says why in the Valid condition.
// 3. The PodGroup and the headless Service are created when missing.
// 4. spec.suspend deletes every pod; the job is Suspended (reason Suspended).
// 5. A failed pod of the current gang restarts the whole gang: every pod is deleted,
//    status.restarts grows, and the pods are recreated after the backoff
//    (backoffSeconds * 2^(restarts-1), at most 10 minutes); past maxRestarts the job
//    is Failed.
// 6. Once a pod has succeeded and no pod holds a node any more, the job Succeeded.
// 7. Otherwise the pods 0..replicas-1 of the current restart exist (created unbound;
//    the scheduler loop binds them as a gang), pods past replicas are deleted (scale
//    down), and the phase follows the pods: Queued while none is bound (Suspended with
//    reason Preempted when the PodGroup says it was preempted), Admitted when bound,
//    Running when at least minReplicas pods run and every bound pod runs. A new job's
//    first status waits for its first scheduling decision (controllers/first_status.h):
//    the status is left as it is and the plan asks to be made again when it is due.
TrainingJobPlan planTrainingJob(const TrainingJobInputs& inputs);

}  // namespace troupe::controllers
