#include "apiserver/registry/resource_registry.h"

#include <tuple>

namespace troupe::apiserver {

namespace {

PrinterColumn column(std::string name, std::string type, std::string json_path, int priority = 0,
                     std::string description = "") {
  PrinterColumn c;
  c.name = std::move(name);
  c.type = std::move(type);
  c.json_path = std::move(json_path);
  c.priority = priority;
  c.description = std::move(description);
  return c;
}

PrinterColumn age() {
  return column("Age", "date", ".metadata.creationTimestamp", 0,
                "CreationTimestamp is a timestamp representing the server time when this "
                "object was created.");
}

ResourceKind kind(std::string group, std::string version, std::string resource,
                  std::string singular, std::string kind_name, bool namespaced) {
  ResourceKind k;
  k.group = std::move(group);
  k.version = std::move(version);
  k.resource = std::move(resource);
  k.singular = std::move(singular);
  k.kind = std::move(kind_name);
  k.list_kind = k.kind + "List";
  k.namespaced = namespaced;
  k.columns = {age()};
  return k;
}

}  // namespace

// Columns whose json_path starts with '#' are computed in handlers/table.cc, as the
// real server's printers compute them (a pod's READY and STATUS, a node's STATUS).
std::vector<ResourceKind> builtinKinds() {
  std::vector<ResourceKind> kinds;

  auto namespaces = kind("", "v1", "namespaces", "namespace", "Namespace", false);
  namespaces.short_names = {"ns"};
  namespaces.has_status = true;
  namespaces.verbs = {"create", "delete", "get", "list", "patch", "update", "watch"};
  namespaces.columns = {column("Status", "string", ".status.phase"), age()};
  kinds.push_back(namespaces);

  auto nodes = kind("", "v1", "nodes", "node", "Node", false);
  nodes.short_names = {"no"};
  nodes.has_status = true;
  nodes.columns = {column("Status", "string", "#nodeStatus"),
                   column("Roles", "string", "#nodeRoles"), age(),
                   column("Version", "string", ".status.nodeInfo.kubeletVersion")};
  kinds.push_back(nodes);

  auto pods = kind("", "v1", "pods", "pod", "Pod", true);
  pods.short_names = {"po"};
  pods.categories = {"all"};
  pods.has_status = true;
  pods.has_binding = true;
  pods.has_eviction = true;
  pods.has_log = true;
  pods.columns = {column("Ready", "string", "#podReady"),
                  column("Status", "string", "#podStatus"),
                  column("Restarts", "string", "#podRestarts"),
                  age(),
                  column("IP", "string", ".status.podIP", 1),
                  column("Node", "string", ".spec.nodeName", 1),
                  column("Nominated Node", "string", ".status.nominatedNodeName", 1),
                  column("Readiness Gates", "string", "#podReadinessGates", 1)};
  kinds.push_back(pods);

  auto services = kind("", "v1", "services", "service", "Service", true);
  services.short_names = {"svc"};
  services.categories = {"all"};
  services.has_status = true;
  services.columns = {column("Type", "string", ".spec.type"),
                      column("Cluster-IP", "string", ".spec.clusterIP"),
                      column("External-IP", "string", "#serviceExternalIP"),
                      column("Port(s)", "string", "#servicePorts"),
                      age(),
                      column("Selector", "string", "#serviceSelector", 1)};
  kinds.push_back(services);

  auto events = kind("", "v1", "events", "event", "Event", true);
  events.short_names = {"ev"};
  events.columns = {column("Last Seen", "string", "#eventLastSeen"),
                    column("Type", "string", ".type"), column("Reason", "string", ".reason"),
                    column("Object", "string", "#eventObject"),
                    column("Message", "string", ".message")};
  kinds.push_back(events);

  auto configmaps = kind("", "v1", "configmaps", "configmap", "ConfigMap", true);
  configmaps.short_names = {"cm"};
  configmaps.columns = {column("Data", "integer", "#dataCount"), age()};
  kinds.push_back(configmaps);

  auto secrets = kind("", "v1", "secrets", "secret", "Secret", true);
  secrets.columns = {column("Type", "string", ".type"), column("Data", "integer", "#dataCount"),
                     age()};
  kinds.push_back(secrets);

  auto serviceaccounts =
      kind("", "v1", "serviceaccounts", "serviceaccount", "ServiceAccount", true);
  serviceaccounts.short_names = {"sa"};
  serviceaccounts.columns = {column("Secrets", "integer", "#secretCount"), age()};
  kinds.push_back(serviceaccounts);

  auto events_v1 = kind("events.k8s.io", "v1", "events", "event", "Event", true);
  events_v1.short_names = {"ev"};
  events_v1.columns = {column("Reason", "string", ".reason"), column("Note", "string", ".note"),
                       age()};
  kinds.push_back(events_v1);

  auto leases = kind("coordination.k8s.io", "v1", "leases", "lease", "Lease", true);
  leases.columns = {column("Holder", "string", ".spec.holderIdentity"), age()};
  kinds.push_back(leases);

  auto priorityclasses =
      kind("scheduling.k8s.io", "v1", "priorityclasses", "priorityclass", "PriorityClass", false);
  priorityclasses.short_names = {"pc"};
  priorityclasses.bumps_generation = true;
  priorityclasses.columns = {column("Value", "integer", ".value"),
                             column("Global-Default", "boolean", ".globalDefault"), age(),
                             column("PreemptionPolicy", "string", ".preemptionPolicy")};
  kinds.push_back(priorityclasses);

  // RBAC objects: stored and served, and read by the authorizer for `rbac` tokens
  // (auth/rbac_authorizer.h).
  const std::string rbac = "rbac.authorization.k8s.io";
  for (auto [resource, singular, kind_name, namespaced] :
       {std::tuple{"clusterroles", "clusterrole", "ClusterRole", false},
        std::tuple{"clusterrolebindings", "clusterrolebinding", "ClusterRoleBinding", false},
        std::tuple{"roles", "role", "Role", true},
        std::tuple{"rolebindings", "rolebinding", "RoleBinding", true}}) {
    auto k = kind(rbac, "v1", resource, singular, kind_name, namespaced);
    if (std::string(kind_name).ends_with("Binding")) {
      k.columns = {column("Role", "string", ".roleRef.name"), age()};
    } else {
      k.columns = {column("Created At", "date", "#createdAt")};
    }
    kinds.push_back(k);
  }

  auto crds = kind("apiextensions.k8s.io", "v1", "customresourcedefinitions",
                   "customresourcedefinition", "CustomResourceDefinition", false);
  crds.short_names = {"crd", "crds"};
  crds.categories = {"api-extensions"};
  crds.has_status = true;
  crds.bumps_generation = true;
  crds.columns = {column("Created At", "date", "#createdAt")};
  kinds.push_back(crds);

  return kinds;
}

}  // namespace troupe::apiserver
