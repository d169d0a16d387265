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
#include "kube/resource_type.h"

namespace troupe::controllers {

namespace res = kube::resources;

namespace {

// The PodGroup to write for the lone pod of `gang` (controllers/lone_pod_groups.h), which
// waits at `t`, when it is due: once the pod has waited kFirstStatusDelaySeconds, as a new
// job's first status does (a pod admitted by then never has a group in the API). Otherwise
// nullopt, with `next` moved to when it is due.
std::optional<Json> lonePodGroupDue(const InformerCaches& caches, const std::string& gang,
                                    std::int64_t t, std::int64_t& next) {
  const auto pods = caches.podsOfGroup(gang);
  if (pods.size() != 1 || !label(*pods[0], api::kPodGroupLabel).empty()) return std::nullopt;
  const auto created = parseTimestamp(stringAt(*pods[0], "/metadata/creationTimestamp"));
  if (created && t < *created + kFirstStatusDelaySeconds) {
    next = *created + kFirstStatusDelaySeconds;
    return std::nullopt;
  }
  auto group = lonePodGroup(*pods[0]);
  if (!group) return std::nullopt;
  // Its status.pending follows once the caches have it.
  next = t + 1;
  return std::move(*group);
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
  std::vector<Json> lone_groups;  // to create
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
    if (!pg) {
      if (auto group = lonePodGroupDue(caches_, due.gang, t, next))
        lone_groups.push_back(std::move(*group));
      schedule_.checked(due.gang, written_at, next);
      continue;
    }
    Json pending = renderPendingStatus(*explanation, cluster.names);
    // No leaf queue of that name for the engine: say why when the queue exists.
    if (explanation->reason == queueing::PendingReason::QueueNotFound)
      if (auto why = cluster.admissibility->whyNot(explanation->queue, namespaceOf(*pg)))
        pending = inadmissiblePending(explanation->queue, *why);
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
    if (!pg) {
      std::int64_t next = t;
      if (auto group = lonePodGroupDue(caches_, key, t, next))
        lone_groups.push_back(std::move(*group));
      continue;
    }
    auto [type, target] = pendingTarget(pg);
    if (!target) continue;
    Json pending = inadmissiblePending(gang->second.queue, why);
    Json current = target->value(Json::json_pointer("/status/pending"), Json());
    if (current != pending)
      writes.push_back({type, target, std::move(current), std::move(pending)});
  }
  writer_.helpers().forEach(lone_groups.size(), kWriteWidth, [&](std::size_t i) {
    const auto& group = lone_groups[i];
    auto r = writer_.create(res::kPodGroups, namespaceOf(group), group);
    if (!r && !r.error().isAlreadyExists())
      log::warn("create failed",
                {{"group", keyOf(group)}, {"kind", "PodGroup"}, {"error", r.error().describe()}});
  });
  writer_.helpers().forEach(writes.size(), kWriteWidth, [&](std::size_t i) {
    const auto& w = writes[i];
    writer_.patchStatus(*w.type, namespaceOf(*w.target), nameOf(*w.target),
                        Json{{"pending", w.current}}, Json{{"pending", w.pending}});
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
