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

// The types Troupe reads and writes.
namespace resources {
extern const ResourceType kPods;
extern const ResourceType kNodes;
extern const ResourceType kNamespaces;
extern const ResourceType kEvents;           // core/v1 events
extern const ResourceType kEventsV1;         // events.k8s.io/v1
extern const ResourceType kLeases;           // coordination.k8s.io/v1
extern const ResourceType kPriorityClasses;  // scheduling.k8s.io/v1, cluster-scoped
extern const ResourceType kServices;
extern const ResourceType kTrainingJobs;  // troupe.dev/v1alpha1
extern const ResourceType kQueues;        // troupe.dev/v1alpha1, cluster-scoped
extern const ResourceType kPodGroups;     // troupe.dev/v1alpha1
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
