#include "controllers/pod_group_reconciler.h"

#include <algorithm>
#include <chrono>

#include "api/well_known.h"
#include "common/log.h"
#include "controllers/annotations.h"
#include "controllers/cluster_writer.h"
#include "controllers/conditions.h"
#include "controllers/event_writer.h"
#include "controllers/first_status.h"
#include "controllers/informer_caches.h"
#include "controllers/lone_pod.h"
#include "controllers/object_json.h"
#include "controllers/pod_group_status.h"
#include "controllers/work_item.h"
#include "kube/resource_type.h"
#include "kube/work_queue.h"

namespace troupe::controllers {

namespace res = kube::resources;

namespace {

// Whether `a` and `b` differ in the pods' counts alone.
bool countsOnlyChanged(Json a, Json b) {
  for (const char* count : {"scheduled", "running", "succeeded", "failed"}) {
    a.erase(count);
    b.erase(count);
  }
  return a == b;
}

}  // namespace

std::int64_t PodGroupReconciler::countsWait(const std::string& key, std::int64_t now) {
  std::lock_guard lock(mu_);
  auto it = written_at_.find(key);
  if (it == written_at_.end()) return 0;
  return std::max<std::int64_t>(0, it->second + kGroupCountsRefreshSeconds - now);
}

void PodGroupReconciler::written(const std::string& key, std::int64_t now) {
  std::lock_guard lock(mu_);
  written_at_[key] = now;
}

PodGroupReconciler::PodGroupReconciler(InformerCaches& caches, ClusterWriter& writer,
                                       EventWriter& events, kube::WorkQueue& queue,
                                       const TimeSource& time)
    : caches_(caches), writer_(writer), events_(events), queue_(queue), time_(time) {}

void PodGroupReconciler::reconcile(const std::string& key) {
  auto pg = caches_.podGroups().cache().get(key);
  if (!pg) {
    std::lock_guard lock(mu_);
    written_at_.erase(key);
    return tellPodsWithoutQueue(key);
  }
  // Shared with the cache: a gang of hundreds of pods is reconciled on each member's
  // event, and copying every member each time made this quadratic in the gang's size.
  const ObjectList pods(caches_.podsOfGroup(key));
  auto status = computePodGroupStatus(*pg, pods, now());
  auto preempted_by = annotation(*pg, kPreemptedByAnnotation);
  if (!preempted_by.empty()) {
    setCondition(status, "Preempted", true, "Preempted", "Preempted by " + preempted_by, now());
  } else if (findCondition(status, "Preempted")) {
    setCondition(status, "Preempted", false, "Admitted", "", now());
  }
  // status.pending belongs to the scheduler loop while the group waits; once the group
  // is placed (or over), it goes.
  Json old_status = pg->value("status", Json::object());
  if (old_status.contains("pending") && status.value("phase", "") == "Pending")
    status["pending"] = old_status["pending"];
  if (old_status != status) {
    const auto wait = countsOnlyChanged(old_status, status) ? countsWait(key, now()) : 0;
    if (wait > 0) {
      queue_.addAfter(podGroupItem(key), std::chrono::seconds(wait));
    } else {
      writer_.patchStatus(res::kPodGroups, namespaceOf(*pg), nameOf(*pg), old_status, status);
      written(key, now());
    }
  }
  if (status.value("phase", "") == "Pending" && pg->contains("spec") &&
      (*pg)["spec"].contains("scheduleTimeoutSeconds"))
    queue_.addAfter(podGroupItem(key), std::chrono::seconds(5));
  // A new group whose first status waits (controllers/first_status.h) is looked at again
  // when it is due, in case nothing else happens to it by then.
  if (status.value("phase", "").empty())
    if (auto wait = firstStatusWait(*pg, now()))
      queue_.addAfter(podGroupItem(key), std::chrono::seconds(*wait));
}

// A lone pod's own PodGroup is kept in memory (controllers/lone_pod_groups.h); a pod that
// names no queue, and so has no group, gets a
// Warning event that says so.
void PodGroupReconciler::tellPodsWithoutQueue(const std::string& key) {
  const auto ns = key.substr(0, key.find('/'));
  for (const auto& pod : caches_.podsOfGroup(key)) {
    const auto phase = stringAt(*pod, "/status/phase");
    if (!label(*pod, api::kPodGroupLabel).empty() || isDeleting(*pod) || phase == "Succeeded" ||
        phase == "Failed")
      continue;
    auto group = lonePodGroup(*pod);
    if (!group)
      events_.record(res::kPods, ns, nameOf(*pod), stringAt(*pod, "/metadata/uid"),
                     {key, "Warning", "NoQueue", group.error().describe()});
  }
}

}  // namespace troupe::controllers
