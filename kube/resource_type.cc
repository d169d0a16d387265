#include "kube/resource_type.h"

namespace troupe::kube {

std::string ResourceType::apiVersion() const {
  return group.empty() ? version : group + "/" + version;
}

std::string ResourceType::qualifiedName() const {
  return group.empty() ? resource : resource + "." + group;
}

std::string ResourceType::collectionPath(const std::string& ns) const {
  std::string path = group.empty() ? "/api/" + version : "/apis/" + group + "/" + version;
  if (namespaced && !ns.empty()) path += "/namespaces/" + ns;
  return path + "/" + resource;
}

std::string ResourceType::objectPath(const std::string& ns, const std::string& name,
                                     const std::string& subresource) const {
  std::string path = collectionPath(ns) + "/" + name;
  if (!subresource.empty()) path += "/" + subresource;
  return path;
}

namespace resources {
const ResourceType kPods{"", "v1", "pods", "Pod", true};
const ResourceType kNodes{"", "v1", "nodes", "Node", false};
const ResourceType kNamespaces{"", "v1", "namespaces", "Namespace", false};
const ResourceType kEvents{"", "v1", "events", "Event", true};
const ResourceType kEventsV1{"events.k8s.io", "v1", "events", "Event", true};
const ResourceType kLeases{"coordination.k8s.io", "v1", "leases", "Lease", true};
const ResourceType kPriorityClasses{"scheduling.k8s.io", "v1", "priorityclasses", "PriorityClass",
                                    false};
const ResourceType kServices{"", "v1", "services", "Service", true};
const ResourceType kTrainingJobs{"troupe.dev", "v1alpha1", "trainingjobs", "TrainingJob", true};
const ResourceType kQueues{"troupe.dev", "v1alpha1", "queues", "Queue", false};
const ResourceType kPodGroups{"troupe.dev", "v1alpha1", "podgroups", "PodGroup", true};
}  // namespace resources

}  // namespace troupe::kube
