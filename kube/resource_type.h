#pragma once

#include <string>

// Which collection a request addresses: group/version/resource (the plural) and whether
// it lives in namespaces. Kinds are not needed to build paths; `kind` is kept for
// messages and for bodies the client writes itself (Binding, Eviction, Lease).
namespace troupe::kube {

struct ResourceType {
  std::string group;     // "" for the core group
  std::string version;   // "v1", "v1alpha1"
  std::string resource;  // plural, lower case: "pods", "trainingjobs"
  std::string kind;      // "Pod", "TrainingJob"
  bool namespaced = true;

  // "v1" for the core group, "<group>/<version>" otherwise (the apiVersion field).
  std::string apiVersion() const;
  // "pods", "leases.coordination.k8s.io": how the server names it in messages.
  std::string qualifiedName() const;
  // "/api/v1/namespaces/<ns>/pods" or "/apis/<group>/<version>/pods". `ns` empty on a
  // namespaced type addresses every namespace (list and watch only).
  std::string collectionPath(const std::string& ns) const;
  // collectionPath + "/<name>" [+ "/<subresource>"].
  std::string objectPath(const std::string& ns, const std::string& name,
                         const std::string& subresource = "") const;

  friend bool operator==(const ResourceType&, const ResourceType&) = default;
};

// The types Troupe reads and writes. Defined here, inline, rather than in one .cc: a
// namespace-scope object elsewhere that is built from one of them (an ObjectRef naming a
// TrainingJob, say) is then guaranteed to see it initialised, since each is defined
// before anything in a file that includes this header. Defined in a .cc, their
// initialisation relative to such objects was left to the link order.
namespace resources {
inline const ResourceType kPods{"", "v1", "pods", "Pod", true};
inline const ResourceType kNodes{"", "v1", "nodes", "Node", false};
inline const ResourceType kNamespaces{"", "v1", "namespaces", "Namespace", false};
inline const ResourceType kEvents{"", "v1", "events", "Event", true};  // core/v1 events
inline const ResourceType kEventsV1{"events.k8s.io", "v1", "events", "Event", true};
inline const ResourceType kLeases{"coordination.k8s.io", "v1", "leases", "Lease", true};
inline const ResourceType kPriorityClasses{"scheduling.k8s.io", "v1", "priorityclasses",
                                           "PriorityClass", false};
inline const ResourceType kServices{"", "v1", "services", "Service", true};
inline const ResourceType kTrainingJobs{"troupe.dev", "v1alpha1", "trainingjobs", "TrainingJob",
                                        true};
inline const ResourceType kQueues{"troupe.dev", "v1alpha1", "queues", "Queue", false};
inline const ResourceType kPodGroups{"troupe.dev", "v1alpha1", "podgroups", "PodGroup", true};
}  // namespace resources

// One object (or one of its subresources: "status", "scale", "binding", "eviction").
struct ObjectRef {
  ResourceType type;
  std::string ns;  // empty for cluster-scoped types
  std::string name;
  std::string subresource;

  std::string path() const { return type.objectPath(ns, name, subresource); }
};

}  // namespace troupe::kube
