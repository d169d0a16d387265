#pragma once

#include <string>
#include <vector>

#include "controllers/cluster_snapshot.h"
#include "kube/informer.h"

namespace troupe::kube {
class KubeClient;
}

// The informer caches the controllers read, one per kind, each fed by list and watch
// through the client. Every reader names the kind it reads (`caches.pods()`), and the pods
// are also indexed by the TrainingJob and the PodGroup they belong to.
namespace troupe::controllers {

class InformerCaches {
 public:
  explicit InformerCaches(kube::KubeClient& client);
  InformerCaches(const InformerCaches&) = delete;
  InformerCaches& operator=(const InformerCaches&) = delete;

  kube::Informer& pods() { return pods_; }
  kube::Informer& nodes() { return nodes_; }
  kube::Informer& queues() { return queues_; }
  kube::Informer& podGroups() { return pod_groups_; }
  kube::Informer& trainingJobs() { return training_jobs_; }
  kube::Informer& priorityClasses() { return priority_classes_; }
  kube::Informer& services() { return services_; }
  // Their labels decide which queues admit a namespace's gangs (a Queue's namespaceSelector).
  kube::Informer& namespaces() { return namespaces_; }
  // Which nodes have which GPUs (docs/gpu-types.md).
  kube::Informer& gpuTypes() { return gpu_types_; }

  // The pods labelled for the TrainingJob "namespace/name", and those of the PodGroup
  // "namespace/name" (its own pods, or a lone pod's, controllers/lone_pod.h).
  std::vector<kube::ObjectPtr> podsOfJob(const std::string& key) const;
  std::vector<kube::ObjectPtr> podsOfGroup(const std::string& key) const;

  // What a scheduling cycle reads, as the caches hold it now (shared, not copied).
  ApiObjects list() const;

  // Before start(): every handler is added (controllers/change_routes.h).
  void start();
  void stop();
  // Every cache has listed once.
  bool synced() const;

 private:
  std::vector<kube::Informer*> all();

  kube::Informer pods_;
  kube::Informer nodes_;
  kube::Informer queues_;
  kube::Informer pod_groups_;
  kube::Informer training_jobs_;
  kube::Informer priority_classes_;
  kube::Informer services_;
  kube::Informer namespaces_;
  kube::Informer gpu_types_;
};

}  // namespace troupe::controllers
