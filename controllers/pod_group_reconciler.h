#pragma once

#include <cstdint>
#include <map>
#include <mutex>
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

// A group's status is written at once when its phase or conditions change, but when only its
// pod counts move (scheduled, running, ... change as a gang's pods start one by one) at most
// this often: a gang of 100 would otherwise be patched once per reconcile its pods' reports
// bring. The last counts are written when the wait is over.
inline constexpr std::int64_t kGroupCountsRefreshSeconds = 2;

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
  // Seconds until group `key`'s pod counts may be written again (0: now), at most one such
  // write every kGroupCountsRefreshSeconds.
  std::int64_t countsWait(const std::string& key, std::int64_t now);
  void written(const std::string& key, std::int64_t now);

  InformerCaches& caches_;
  ClusterWriter& writer_;
  EventWriter& events_;
  kube::WorkQueue& queue_;
  const TimeSource& time_;
  std::mutex mu_;
  // When each group's status was last written (seconds), for the counts' refresh.
  std::map<std::string, std::int64_t> written_at_;
};

}  // namespace troupe::controllers
