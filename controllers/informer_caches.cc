#include "controllers/informer_caches.h"

#include "api/well_known.h"
#include "controllers/lone_pod.h"
#include "controllers/object_json.h"
#include "kube/kube_client.h"

namespace troupe::controllers {
namespace {

namespace res = kube::resources;

constexpr const char* kByJob = "job";
constexpr const char* kByGroup = "group";

// Read by the scheduling cycle only, so defined here rather than in kube/resource_type.h.
const kube::ResourceType& gpuTypesResource() {
  static const kube::ResourceType type{std::string(api::kGroup), std::string(api::kVersion),
                                       std::string(api::kGpuTypeResource),
                                       std::string(api::kGpuTypeKind), false};
  return type;
}

}  // namespace

InformerCaches::InformerCaches(kube::KubeClient& client)
    : pods_(client, res::kPods, ""),
      nodes_(client, res::kNodes, ""),
      queues_(client, res::kQueues, ""),
      pod_groups_(client, res::kPodGroups, ""),
      training_jobs_(client, res::kTrainingJobs, ""),
      priority_classes_(client, res::kPriorityClasses, ""),
      services_(client, res::kServices, ""),
      namespaces_(client, res::kNamespaces, ""),
      gpu_types_(client, gpuTypesResource(), "") {
  pods_.addIndex(kByJob, [](const Json& p) -> std::vector<std::string> {
    auto job = label(p, api::kJobNameLabel);
    if (job.empty()) return {};
    return {namespaceOf(p) + "/" + job};
  });
  pods_.addIndex(kByGroup, [](const Json& p) -> std::vector<std::string> {
    auto group = podGroupName(p);
    if (group.empty()) return {};
    return {namespaceOf(p) + "/" + group};
  });
}

std::vector<kube::ObjectPtr> InformerCaches::podsOfJob(const std::string& key) const {
  return pods_.cache().byIndex(kByJob, key);
}

std::vector<kube::ObjectPtr> InformerCaches::podsOfGroup(const std::string& key) const {
  return pods_.cache().byIndex(kByGroup, key);
}

ApiObjects InformerCaches::list() const {
  ApiObjects objects;
  objects.nodes = ObjectList(nodes_.cache().list());
  objects.queues = ObjectList(queues_.cache().list());
  objects.pod_groups = ObjectList(pod_groups_.cache().list());
  objects.priority_classes = ObjectList(priority_classes_.cache().list());
  objects.namespaces = ObjectList(namespaces_.cache().list());
  objects.gpu_types = ObjectList(gpu_types_.cache().list());
  objects.pods = ObjectList(pods_.cache().list());
  return objects;
}

// Started and stopped in the order of their resource names.
std::vector<kube::Informer*> InformerCaches::all() {
  return {&gpu_types_,        &namespaces_, &nodes_,    &pod_groups_,   &pods_,
          &priority_classes_, &queues_,     &services_, &training_jobs_};
}

void InformerCaches::start() {
  for (auto* informer : all()) informer->start();
}

void InformerCaches::stop() {
  for (auto* informer : all()) informer->stop();
}

bool InformerCaches::synced() const {
  return pods_.hasSynced() && nodes_.hasSynced() && queues_.hasSynced() &&
         pod_groups_.hasSynced() && training_jobs_.hasSynced() && priority_classes_.hasSynced() &&
         services_.hasSynced() && namespaces_.hasSynced() && gpu_types_.hasSynced();
}

}  // namespace troupe::controllers
