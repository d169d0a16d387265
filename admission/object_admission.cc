#include "admission/object_admission.h"

#include <fmt/format.h>

#include <algorithm>

#include "admission/queue_forest.h"
#include "api/field_error.h"
#include "api/gpu_type.h"
#include "api/pod_group.h"
#include "api/queue.h"
#include "api/training_job.h"
#include "api/validated.h"
#include "api/well_known.h"

namespace troupe::admission {

using nlohmann::json;

namespace {

Verdict invalidVerdict(std::vector<Error> errors) {
  return Verdict{Verdict::Outcome::Invalid, std::move(errors)};
}

// Decodes and validates; on an update also against the old object.
template <typename T>
std::optional<Verdict> checkRules(const AdmissionRequest& request, T& out) {
  auto now = api::decodeAndValidate<T>(*request.object);
  out = now.object;
  if (!now.ok()) return invalidVerdict(std::move(now.errors));
  if (request.operation == Operation::Update && request.old_object != nullptr) {
    std::vector<Error> ignored;
    T old = T::fromJson(*request.old_object, ignored);
    auto errors = now.object.validateUpdate(old);
    if (!errors.empty()) return invalidVerdict(std::move(errors));
  }
  return std::nullopt;
}

// Whether namespace `ns` may submit to `queue_name`, named at `field`: only leaf queues
// take jobs (422), and only from namespaces they admit (403).
Verdict checkQueueAccess(const std::string& queue_name, const std::string& ns,
                         const std::string& field, const ClusterView& cluster) {
  QueueForest forest(cluster.queues());
  const api::Queue* queue = forest.find(queue_name);
  if (queue == nullptr) return {};  // not there yet: the job waits for it
  if (!forest.isLeaf(queue_name))
    return invalidVerdict({api::invalid(field, queue_name, notALeafMessage(forest, queue_name))});
  auto labels = cluster.namespaceLabels(ns);
  if (queue->spec.admitsNamespace(ns, labels ? &*labels : nullptr)) return {};
  // A namespace the view does not know yet may still match the selector: the scheduler
  // checks again before it admits anything.
  if (!labels && queue->spec.namespace_selector) return {};
  return Verdict{Verdict::Outcome::Forbidden,
                 {api::forbidden(field, notAdmittedMessage(*queue, ns))}};
}

// A PodGroup Troupe makes for a TrainingJob or a lone pod names its owner as controller.
bool ownedByTroupe(const api::PodGroup& group) {
  const api::OwnerReference* owner = group.metadata.controllerRef();
  if (owner == nullptr) return false;
  return (owner->kind == api::kTrainingJobKind && owner->api_version == api::kApiVersion) ||
         (owner->kind == "Pod" && owner->api_version == "v1");
}

// The guarantee of `resource` in `q`: of a resource in spec.resources, or of a GPU type
// (gpu.troupe.dev/<type>).
api::Quantity guaranteedOf(const api::Queue& q, const std::string& resource) {
  const auto quotas = q.spec.quotasByResource();
  auto it = quotas.find(resource);
  return it == quotas.end() ? api::Quantity() : it->second.guaranteedOrZero();
}

// The tree rules a Queue write must keep (see the header).
Verdict checkQueueTree(const api::Queue& queue, Operation operation, const ClusterView& cluster) {
  const std::string& name = queue.metadata.name;
  std::vector<api::Validated<api::Queue>> queues = cluster.queues();
  std::optional<api::Queue> old;
  if (operation == Operation::Update)
    for (auto& q : queues)
      if (q.object.metadata.name == name) old = q.object;
  std::erase_if(queues, [&](const auto& q) { return q.object.metadata.name == name; });
  queues.push_back({queue, {}});
  QueueForest forest(std::move(queues));

  if (const QueueProblem* p = forest.problem(name); p && p->reason == kQueueCycle)
    return invalidVerdict({p->error});

  // Whether the write raised (or newly brought) the queue's guarantee of a resource under
  // its parent.
  auto raised = [&](const std::string& resource) {
    if (!old || old->spec.parent != queue.spec.parent) return true;
    return guaranteedOf(queue, resource) > guaranteedOf(*old, resource);
  };
  auto countable = [&](const std::string& q) {
    const QueueProblem* p = forest.problem(q);
    return p == nullptr || (p->reason != kQueueInvalidSpec && p->reason != kQueueCycle);
  };
  std::vector<Error> errors;
  // Its siblings' guarantees and its own within its parent's.
  if (const api::Queue* parent = forest.find(queue.spec.parent)) {
    for (const auto& [resource, quota] : queue.spec.quotasByResource()) {
      if (!quota.guaranteed || quota.guaranteed->isZero() || !raised(resource)) continue;
      api::Quantity total;
      bool overflow = false;
      for (const auto& sibling : forest.children(queue.spec.parent)) {
        if (!countable(sibling)) continue;
        auto sum = total.plus(guaranteedOf(*forest.find(sibling), resource));
        if (!sum) {
          overflow = true;
          break;
        }
        total = *sum;
      }
      const api::Quantity limit = guaranteedOf(*parent, resource);
      if (overflow || total > limit) {
        errors.push_back(api::invalid(
            queue.spec.guaranteedPath(resource), quota.guaranteed->toString(),
            fmt::format("the guarantees of {}'s children would add up to {} {}, more than {}'s {}",
                        queue.spec.parent, overflow ? "more than int64 holds" : total.toString(),
                        resource, queue.spec.parent, limit.toString())));
      }
    }
  }
  // Its children's guarantees within its own.
  std::map<std::string, std::vector<std::string>> holders;
  std::map<std::string, api::Quantity> below;
  for (const auto& child : forest.children(name)) {
    if (!countable(child)) continue;
    for (const auto& [resource, quota] : forest.find(child)->spec.quotasByResource()) {
      if (!quota.guaranteed || quota.guaranteed->isZero()) continue;
      auto sum = below[resource].plus(*quota.guaranteed);
      if (sum) below[resource] = *sum;
      holders[resource].push_back(fmt::format("{} {}", child, quota.guaranteed->toString()));
    }
  }
  for (const auto& [resource, total] : below) {
    const api::Quantity own = guaranteedOf(queue, resource);
    if (total <= own) continue;
    if (old && guaranteedOf(*old, resource) <= own) continue;  // not this write's doing
    errors.push_back(
        api::invalid(queue.spec.guaranteedPath(resource), own.toString(),
                     fmt::format("less than the {} {} its children are guaranteed ({})",
                                 total.toString(), resource, fmt::join(holders[resource], ", "))));
  }
  if (!errors.empty()) return invalidVerdict(std::move(errors));
  return {};
}

}  // namespace

bool isLonePodWithQueue(const json& pod) {
  if (!pod.is_object()) return false;
  const json& spec = pod.value("spec", json::object());
  if (!spec.is_object() || spec.value("schedulerName", "") != api::kSchedulerName) return false;
  const json meta = pod.value("metadata", json::object());
  const json labels = meta.is_object() ? meta.value("labels", json::object()) : json::object();
  if (!labels.is_object()) return false;
  auto queue = labels.find(api::kQueueLabel);
  return queue != labels.end() && queue->is_string() && !labels.contains(api::kPodGroupLabel);
}

Verdict admit(const AdmissionRequest& request, const ClusterView& cluster) {
  if (request.object == nullptr) return {};
  const bool create = request.operation == Operation::Create;
  if (request.kind == api::kTrainingJobKind) {
    api::TrainingJob job;
    if (auto refused = checkRules(request, job)) return *refused;
    if (create) return checkQueueAccess(job.spec.queue, request.ns, "spec.queue", cluster);
    return {};
  }
  if (request.kind == api::kPodGroupKind) {
    api::PodGroup group;
    if (auto refused = checkRules(request, group)) return *refused;
    if (create && !ownedByTroupe(group))
      return checkQueueAccess(group.spec.queue, request.ns, "spec.queue", cluster);
    return {};
  }
  if (request.kind == api::kQueueKind) {
    api::Queue queue;
    if (auto refused = checkRules(request, queue)) return *refused;
    return checkQueueTree(queue, request.operation, cluster);
  }
  if (request.kind == api::kGpuTypeKind) {
    api::GpuType type;
    if (auto refused = checkRules(request, type)) return *refused;
    return {};
  }
  if (request.kind == "Pod" && create && isLonePodWithQueue(*request.object)) {
    const std::string queue =
        (*request.object)["metadata"]["labels"][std::string(api::kQueueLabel)].get<std::string>();
    return checkQueueAccess(queue, request.ns, api::keyPath("metadata.labels", api::kQueueLabel),
                            cluster);
  }
  return {};
}

}  // namespace troupe::admission
