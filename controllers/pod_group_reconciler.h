#pragma once

#include <cstdint>
#include <string>

#include "common/clock.h"
#include "controllers/object_json.h"

namespace troupe::kube {
class WorkQueue;
}

// Brings a PodGroup's status to what its pods show (controllers/pod_group_status.h), with
// the Preempted condition its troupe.dev/preempted-by annotation asks for; a lone pod that
// names no queue, and so has no group (controllers/lone_pod.h), is told so in an Event.
// Any reconcile worker; never two on one group (the work queue's rule).
namespace troupe::controllers {

class ClusterWriter;
class EventWriter;
class InformerCaches;

class PodGroupReconciler {
 public:
  PodGroupReconciler(InformerCaches& caches, ClusterWriter& writer, EventWriter& events,
                     kube::WorkQueue& queue, const TimeSource& time);

  // The group "namespace/name", or the lone pod of that group name when the group is not
  // in the API.
  void reconcile(const std::string& key);

 private:
  std::int64_t now() const { return epochSeconds(time_.now()); }
  void tellPodsWithoutQueue(const std::string& key);

  InformerCaches& caches_;
  ClusterWriter& writer_;
  EventWriter& events_;
  kube::WorkQueue& queue_;
  const TimeSource& time_;
};

}  // namespace troupe::controllers
