#include "cli/cluster_objects.h"

#include <chrono>

#include "kube/resource_type.h"

namespace troupe::cli {
namespace {

namespace res = kube::resources;

// Lists `type` into `out`; a 403 is recorded, not fatal.
Status listInto(kube::KubeClient& client, const kube::ResourceType& type, const std::string& ns,
                const kube::ListOptions& options, std::vector<nlohmann::json>& out,
                ClusterObjects& objects) {
  auto list = kube::listAll(client, type, type.namespaced ? ns : "", options);
  if (!list) {
    if (list.error().http_status == 403) {
      objects.not_readable.push_back(type.resource + ": " + list.error().message);
      return {};
    }
    return makeError(list.error().code, type.resource, list.error().message);
  }
  for (auto& item : (*list)["items"]) out.push_back(std::move(item));
  return {};
}

}  // namespace

Result<ClusterObjects> readClusterObjects(kube::KubeClient& client, const Kinds& kinds,
                                          const std::string& ns) {
  ClusterObjects objects;
  objects.now =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  kube::ListOptions all;
  Status status;
  if (kinds.queues) status = listInto(client, res::kQueues, ns, all, objects.queues, objects);
  if (status && kinds.jobs) {
    status = listInto(client, res::kTrainingJobs, ns, all, objects.training_jobs, objects);
    if (status) status = listInto(client, res::kPodGroups, ns, all, objects.pod_groups, objects);
    if (status)
      status = listInto(client, res::kPriorityClasses, "", all, objects.priority_classes, objects);
  }
  if (status && kinds.pods) {
    kube::ListOptions troupe_pods;
    troupe_pods.field_selector = "spec.schedulerName=troupe";
    status = listInto(client, res::kPods, ns, troupe_pods, objects.pods, objects);
  }
  if (status && kinds.nodes)
    status = listInto(client, res::kNodes, "", all, objects.nodes, objects);
  if (!status) return status.error();
  return objects;
}

}  // namespace troupe::cli
