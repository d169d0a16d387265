#include "controllers/pending_status_writer.h"

#include <optional>
#include <string>
#include <vector>

#include "api/well_known.h"
#include "common/helper_pool.h"
#include "common/log.h"
#include "controllers/cluster_writer.h"
#include "controllers/first_status.h"
#include "controllers/gang_admissibility.h"
#include "controllers/informer_caches.h"
#include "controllers/lone_pod.h"
#include "controllers/object_json.h"
#include "controllers/pending_status.h"
#include "controllers/resources.h"
#include "controllers/unschedulable_condition.h"
#include "kube/resource_type.h"

namespace troupe::controllers {

namespace res = kube::resources;

namespace {

// The lone pod of `gang` (controllers/lone_pod_groups.h), which waits at `t`, when its
// PodScheduled condition is due: once it has waited kFirstStatusDelaySeconds, as a new
// job's first status is (a pod admitted by then is never written but for its binding).
// Otherwise null, with `next` moved to when it is due.
kube::ObjectPtr lonePodDue(const InformerCaches& caches, const std::string& gang, std::int64_t t,
                           std::int64_t& next) {
  const auto pods = caches.podsOfGroup(gang);
  if (pods.size() != 1 || !label(*pods[0], api::kPodGroupLabel).empty()) return nullptr;
  const auto created = parseTimestamp(stringAt(*pods[0], "/metadata/creationTimestamp"));
  if (created && t < *created + kFirstStatusDelaySeconds) {
    next = *created + kFirstStatusDelaySeconds;
    return nullptr;
  }
  return pods[0];
}

// status.pending of a gang that may not use its queue (controllers/gang_admissibility.h).
Json inadmissiblePending(const std::string& queue, const std::string& why) {
  return Json{{"reason", kPendingInadmissible}, {"message", why}, {"queue", queue}};
}

}  // namespace

PendingStatusWriter::PendingStatusWriter(InformerCaches& caches, ClusterWriter& writer)
    : caches_(caches), writer_(writer) {}

void PendingStatusWriter::write(const queueing::Engine& engine,
                                const queueing::Decisions& decisions,
                                const ClusterSnapshot& cluster, std::int64_t t) {
  struct Write {
    const kube::ResourceType* type;
    kube::ObjectPtr target;
    Json current;
    Json pending;
  };
  std::vector<Write> writes;
  std::vector<LoneWrite> lone_writes;
  forgetLonePods(cluster);
  for (auto& due : schedule_.take(decisions.explained, t)) {
    // A gang no longer waiting is not put back on the schedule.
    auto gang = cluster.gangs.find(due.gang);
    if (gang == cluster.gangs.end() || gang->second.state != GangState::Pending) continue;
    auto explanation = engine.explanation(due.gang);
    if (!explanation) continue;
    // From here on the gang waits: whatever happens, compare it again in a while.
    std::optional<std::int64_t> written_at = due.written_at;
    std::int64_t next = t + kPendingRefreshSeconds;
    auto pg = caches_.podGroups().cache().get(due.gang);
    Json pending = renderPendingStatus(*explanation, cluster.names);
    // No leaf queue of that name for the engine: say why when the queue exists.
    if (explanation->reason == queueing::PendingReason::QueueNotFound)
      if (auto why = cluster.admissibility->whyNot(explanation->queue,
                                                   due.gang.substr(0, due.gang.find('/'))))
        pending = inadmissiblePending(explanation->queue, *why);
    if (!pg) {
      if (auto pod = lonePodDue(caches_, due.gang, t, next))
        noteLoneWait(due.gang, pod, pending, t, lone_writes);
      schedule_.checked(due.gang, written_at, next);
      continue;
    }
    auto [type, target] = pendingTarget(pg);
    if (target) {
      Json current = target->value(Json::json_pointer("/status/pending"), Json());
      const bool same_reason = current.is_object() &&
                               current.value("reason", "") == pending.value("reason", "") &&
                               current.value("queue", "") == pending.value("queue", "");
      if (current == pending) {
        // Nothing to write.
      } else if (same_reason && written_at && t - *written_at < kPendingRefreshSeconds) {
        // Same reason, other numbers: refreshed now and then, not every cycle.
        next = *written_at + kPendingRefreshSeconds;
      } else {
        written_at = t;
        writes.push_back({type, target, std::move(current), std::move(pending)});
      }
    }
    schedule_.checked(due.gang, written_at, next);
  }
  // Gangs left out of the engine because they may not use their queue: compared every
  // cycle (there are few, and their reason comes from no engine explanation).
  for (const auto& [key, why] : cluster.inadmissible) {
    auto gang = cluster.gangs.find(key);
    auto pg = caches_.podGroups().cache().get(key);
    if (gang == cluster.gangs.end()) continue;
    Json pending = inadmissiblePending(gang->second.queue, why);
    if (!pg) {
      std::int64_t next = t;
      if (auto pod = lonePodDue(caches_, key, t, next))
        noteLoneWait(key, pod, pending, t, lone_writes);
      continue;
    }
    auto [type, target] = pendingTarget(pg);
    if (!target) continue;
    Json current = target->value(Json::json_pointer("/status/pending"), Json());
    if (current != pending)
      writes.push_back({type, target, std::move(current), std::move(pending)});
  }
  writer_.helpers().forEach(lone_writes.size(), kWriteWidth, [&](std::size_t i) {
    const auto& w = lone_writes[i];
    writer_.writeStatusPatch(res::kPods, namespaceOf(*w.pod), nameOf(*w.pod), w.patch);
  });
  writer_.helpers().forEach(writes.size(), kWriteWidth, [&](std::size_t i) {
    const auto& w = writes[i];
    writer_.patchStatus(*w.type, namespaceOf(*w.target), nameOf(*w.target),
                        Json{{"pending", w.current}}, Json{{"pending", w.pending}});
  });
}

void PendingStatusWriter::noteLoneWait(const std::string& gang, const kube::ObjectPtr& pod,
                                       const Json& pending, std::int64_t t,
                                       std::vector<LoneWrite>& writes) {
  const std::string reason = pending.value("reason", "");
  auto [it, added] = lone_reasons_.try_emplace(gang, reason);
  // Written once a reason: the numbers in the sentence move with every admission.
  if (!added && it->second == reason) return;
  it->second = reason;
  if (auto patch = unschedulablePatch(*pod, pending.value("message", ""), t))
    writes.push_back({pod, std::move(*patch)});
}

void PendingStatusWriter::forgetLonePods(const ClusterSnapshot& cluster) {
  std::erase_if(lone_reasons_, [&](const auto& entry) {
    auto gang = cluster.gangs.find(entry.first);
    return gang == cluster.gangs.end() || gang->second.state != GangState::Pending;
  });
}

std::pair<const kube::ResourceType*, kube::ObjectPtr> PendingStatusWriter::pendingTarget(
    const kube::ObjectPtr& pg) const {
  auto owner = controllerOf(*pg);
  if (owner && owner->kind == api::kTrainingJobKind)
    return {&res::kTrainingJobs,
            caches_.trainingJobs().cache().get(namespaceOf(*pg) + "/" + owner->name)};
  return {&res::kPodGroups, pg};
}

}  // namespace troupe::controllers
