#include <catch2/catch.hpp>

#include <fstream>

#include "apiserver/auth/owner_reference_check.h"
#include "apiserver/auth/policy_rule.h"
#include "apiserver/auth/rbac_authorizer.h"
#include "apiserver/auth/token_file.h"
#include "apiserver/registry/resource_registry.h"
#include "test/support/in_process_server.h"
#include "test/support/memory_object_store.h"

namespace troupe::apiserver {
namespace {

using json = nlohmann::json;
using auth::Attributes;

TEST_CASE("an RBAC rule matches verbs, groups, resources, subresources and names as kube's does",
          "[apiserver][auth][rbac]") {
  struct Case {
    std::string name;
    auth::PolicyRule rule;
    Attributes request;
    bool want;
  };
  const auth::PolicyRule pods{{"list", "watch"}, {""}, {"pods"}, {}, {}};
  const auth::PolicyRule binding{{"create"}, {""}, {"pods/binding"}, {}, {}};
  const auth::PolicyRule any_status{{"patch"}, {"troupe.dev"}, {"*/status"}, {}, {}};
  const auth::PolicyRule one_lease{
      {"get", "update"}, {"coordination.k8s.io"}, {"leases"}, {"troupe-operator"}, {}};
  const auth::PolicyRule everything{{"*"}, {"*"}, {"*"}, {}, {}};
  std::vector<Case> cases = {
      {"a listed verb on the resource", pods, {"list", "", "pods", "", "", ""}, true},
      {"a verb the rule lacks", pods, {"get", "", "pods", "", "ns", "p"}, false},
      {"another group", pods, {"list", "apps", "pods", "", "", ""}, false},
      {"a subresource is not its resource", pods, {"list", "", "pods", "log", "ns", "p"}, false},
      {"resource/subresource", binding, {"create", "", "pods", "binding", "ns", "p"}, true},
      {"the resource is not its subresource", binding, {"create", "", "pods", "", "ns", ""}, false},
      {"*/subresource", any_status, {"patch", "troupe.dev", "queues", "status", "", "q"}, true},
      {"*/subresource, not the main resource",
       any_status,
       {"patch", "troupe.dev", "queues", "", "", "q"},
       false},
      {"a named object",
       one_lease,
       {"update", "coordination.k8s.io", "leases", "", "ts", "troupe-operator"},
       true},
      {"another name",
       one_lease,
       {"get", "coordination.k8s.io", "leases", "", "ts", "other"},
       false},
      {"names never allow a request without one",
       one_lease,
       {"get", "coordination.k8s.io", "leases", "", "ts", ""},
       false},
      {"wildcards", everything, {"deletecollection", "x.io", "things", "scale", "n", ""}, true},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) { CHECK(auth::ruleAllows(tc.rule, tc.request) == tc.want); }
  }
}

json role(const std::string& kind, const std::string& name, const std::string& ns, json rules) {
  json r{{"apiVersion", "rbac.authorization.k8s.io/v1"},
         {"kind", kind},
         {"metadata", {{"name", name}}},
         {"rules", std::move(rules)}};
  if (!ns.empty()) r["metadata"]["namespace"] = ns;
  return r;
}

json binding(const std::string& kind, const std::string& name, const std::string& ns,
             const std::string& role_kind, const std::string& role_name, json subjects) {
  json b{{"apiVersion", "rbac.authorization.k8s.io/v1"},
         {"kind", kind},
         {"metadata", {{"name", name}}},
         {"roleRef",
          {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", role_kind}, {"name", role_name}}},
         {"subjects", std::move(subjects)}};
  if (!ns.empty()) b["metadata"]["namespace"] = ns;
  return b;
}

void put(testing::MemoryObjectStore& store, const std::string& resource, const json& object) {
  const auto& meta = object["metadata"];
  REQUIRE(store
              .create({resource + ".rbac.authorization.k8s.io", meta.value("namespace", ""),
                       meta["name"].get<std::string>()},
                      object)
              .ok());
}

auth::Identity user(const std::string& name) {
  auth::Identity id;
  id.user = name;
  id.rbac = true;
  id.groups = auth::groupsOf(name);
  return id;
}

TEST_CASE(
    "the RBAC authorizer grants what a binding of the user, its group or its "
    "ServiceAccount refers to, and nothing else",
    "[apiserver][auth][rbac]") {
  testing::MemoryObjectStore store;
  put(store, "clusterroles",
      role("ClusterRole", "reader", "",
           json::array(
               {{{"apiGroups", {""}}, {"resources", {"pods"}}, {"verbs", {"list", "watch"}}}})));
  put(store, "clusterroles",
      role("ClusterRole", "lease-taker", "",
           json::array({{{"apiGroups", {"coordination.k8s.io"}},
                         {"resources", {"leases"}},
                         {"verbs", {"create"}}}})));
  put(store, "roles",
      role("Role", "elector", "sys",
           json::array({{{"apiGroups", {"coordination.k8s.io"}},
                         {"resources", {"leases"}},
                         {"resourceNames", {"the-lease"}},
                         {"verbs", {"get", "update"}}}})));
  put(store, "clusterrolebindings",
      binding("ClusterRoleBinding", "op-reads", "", "ClusterRole", "reader",
              json::array({{{"kind", "ServiceAccount"}, {"name", "op"}, {"namespace", "sys"}}})));
  put(store, "clusterrolebindings",
      binding("ClusterRoleBinding", "team-reads", "", "ClusterRole", "reader",
              json::array({{{"kind", "Group"}, {"name", "team"}}})));
  // A ServiceAccount subject of a RoleBinding without a namespace is in the binding's.
  put(store, "rolebindings",
      binding("RoleBinding", "op-elects", "sys", "Role", "elector",
              json::array({{{"kind", "ServiceAccount"}, {"name", "op"}}})));
  // A RoleBinding may refer to a ClusterRole: it grants that role in its namespace only.
  put(store, "rolebindings",
      binding("RoleBinding", "op-takes-leases", "sys", "ClusterRole", "lease-taker",
              json::array({{{"kind", "User"}, {"name", "system:serviceaccount:sys:op"}}})));
  put(store, "rolebindings",
      binding("RoleBinding", "dangling", "sys", "Role", "missing",
              json::array({{{"kind", "Group"}, {"name", "system:authenticated"}}})));
  auth::RbacAuthorizer rbac(store);
  const auto op = user("system:serviceaccount:sys:op");
  auto member = user("carol");
  member.groups.push_back("team");

  struct Case {
    std::string name;
    auth::Identity who;
    Attributes request;
    bool want;
    std::string want_reason;
  };
  std::vector<Case> cases = {
      {"a ClusterRoleBinding to the ServiceAccount",
       op,
       {"list", "", "pods", "", "", ""},
       true,
       "RBAC: allowed by ClusterRoleBinding \"op-reads\" of ClusterRole \"reader\" to "
       "ServiceAccount \"op/sys\""},
      {"a verb the role lacks", op, {"delete", "", "pods", "", "a", "p"}, false, ""},
      {"a ServiceAccount of the same name elsewhere",
       user("system:serviceaccount:other:op"),
       {"list", "", "pods", "", "", ""},
       false,
       ""},
      {"a Group binding",
       member,
       {"watch", "", "pods", "", "", ""},
       true,
       "RBAC: allowed by ClusterRoleBinding \"team-reads\" of ClusterRole \"reader\" to Group "
       "\"team\""},
      {"a Role in the binding's namespace",
       op,
       {"update", "coordination.k8s.io", "leases", "", "sys", "the-lease"},
       true,
       "RBAC: allowed by RoleBinding \"op-elects/sys\" of Role \"elector\" to ServiceAccount "
       "\"op/sys\""},
      {"the Role's grant stops at its namespace",
       op,
       {"update", "coordination.k8s.io", "leases", "", "other", "the-lease"},
       false,
       ""},
      {"a ClusterRole through a RoleBinding, in its namespace",
       op,
       {"create", "coordination.k8s.io", "leases", "", "sys", ""},
       true,
       "RBAC: allowed by RoleBinding \"op-takes-leases/sys\" of ClusterRole \"lease-taker\" to "
       "User \"system:serviceaccount:sys:op\""},
      {"a ClusterRole through a RoleBinding, not at the cluster scope",
       op,
       {"create", "coordination.k8s.io", "leases", "", "", ""},
       false,
       ""},
      {"a binding to a missing role grants nothing",
       user("dave"),
       {"get", "", "pods", "", "sys", "p"},
       false,
       ""},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      auto decision = rbac.authorize(tc.who, tc.request);
      CHECK(decision.allowed == tc.want);
      CHECK(decision.reason == tc.want_reason);
    }
  }
}

TEST_CASE("an owner reference that blocks deletion asks for update on the owner's finalizers",
          "[apiserver][auth][rbac]") {
  ResourceRegistry registry;
  auto refs = [](json list) { return json{{"metadata", {{"ownerReferences", std::move(list)}}}}; };
  auto requests = auth::ownerFinalizerRequests(
      refs(json::array(
          {{{"apiVersion", "v1"}, {"kind", "Pod"}, {"name", "solo"}, {"blockOwnerDeletion", true}},
           {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", "n"}}})),
      "team", registry);
  REQUIRE(requests.ok());
  REQUIRE(requests->size() == 1);  // the Node reference does not block deletion
  const auto& r = requests->front();
  CHECK(r.verb == "update");
  CHECK(r.resource == "pods");
  CHECK(r.subresource == "finalizers");
  CHECK(r.ns == "team");
  CHECK(r.name == "solo");

  auto unknown = auth::ownerFinalizerRequests(refs(json::array({{{"apiVersion", "x.io/v1"},
                                                                 {"kind", "Thing"},
                                                                 {"name", "t"},
                                                                 {"blockOwnerDeletion", true}}})),
                                              "team", registry);
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().code == ErrorCode::Forbidden);
}

}  // namespace
}  // namespace troupe::apiserver

namespace troupe::apiserver {
namespace {

using testing::HttpCall;
using testing::InProcessServer;

testing::HttpReply as(const InProcessServer& server, const std::string& token,
                      const std::string& method, const std::string& path,
                      const std::string& body = "") {
  HttpCall call;
  call.method = method;
  call.path = path;
  call.token = token;
  call.body = body;
  if (!body.empty()) call.headers.emplace_back("Content-Type", "application/json");
  return testing::httpsRequest(server.port(), call);
}

TEST_CASE(
    "a ServiceAccount's token may do what the stored RBAC objects grant it, in the real "
    "server's words, and every decision is logged",
    "[apiserver][auth][rbac]") {
  InProcessServer server;
  const std::string sa = InProcessServer::kServiceAccountToken;
  const std::string admin = server.adminToken();
  auto message = [](const testing::HttpReply& r) {
    return json::parse(r.body).value("message", "");
  };

  auto denied = as(server, sa, "GET", "/api/v1/pods");
  CHECK(denied.status == 403);
  CHECK(message(denied) ==
        "pods is forbidden: User \"system:serviceaccount:sys:op\" cannot list resource \"pods\" "
        "in API group \"\" at the cluster scope");

  // A Role in "fixtures" lets it create ConfigMaps there, bound to the ServiceAccount.
  (void)as(server, admin, "POST", "/api/v1/namespaces", R"({"metadata":{"name":"fixtures"}})");
  const std::string rbac = "/apis/rbac.authorization.k8s.io/v1/namespaces/fixtures/";
  json role{
      {"apiVersion", "rbac.authorization.k8s.io/v1"},
      {"kind", "Role"},
      {"metadata", {{"name", "maker"}}},
      {"rules",
       json::array({{{"apiGroups", {""}}, {"resources", {"configmaps"}}, {"verbs", {"create"}}}})}};
  REQUIRE(as(server, admin, "POST", rbac + "roles", role.dump()).status == 201);
  json binding{
      {"apiVersion", "rbac.authorization.k8s.io/v1"},
      {"kind", "RoleBinding"},
      {"metadata", {{"name", "op-makes"}}},
      {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Role"}, {"name", "maker"}}},
      {"subjects",
       json::array({{{"kind", "ServiceAccount"}, {"name", "op"}, {"namespace", "sys"}}})}};
  REQUIRE(as(server, admin, "POST", rbac + "rolebindings", binding.dump()).status == 201);

  const std::string configmaps = "/api/v1/namespaces/fixtures/configmaps";
  CHECK(as(server, sa, "POST", configmaps, R"({"metadata":{"name":"plain"}})").status == 201);
  CHECK(as(server, sa, "GET", configmaps + "/plain").status == 403);

  // Owned by a TrainingJob with blockOwnerDeletion: update on its finalizers is needed too.
  const std::string owned =
      R"({"metadata":{"name":"owned","ownerReferences":[{"apiVersion":"troupe.dev/v1alpha1",)"
      R"("kind":"TrainingJob","name":"j","uid":"u1","controller":true,"blockOwnerDeletion":true}]}})";
  auto blocked = as(server, sa, "POST", configmaps, owned);
  CHECK(blocked.status == 403);
  CHECK(message(blocked) ==
        "configmaps \"owned\" is forbidden: cannot set blockOwnerDeletion if an ownerReference "
        "refers to a resource you can't set finalizers on: , <nil>");
  role["rules"].push_back({{"apiGroups", {"troupe.dev"}},
                           {"resources", {"trainingjobs/finalizers"}},
                           {"verbs", {"update"}}});
  role["metadata"]["resourceVersion"] = json::parse(
      as(server, admin, "GET", rbac + "roles/maker").body)["metadata"]["resourceVersion"];
  REQUIRE(as(server, admin, "PUT", rbac + "roles/maker", role.dump()).status == 200);
  CHECK(as(server, sa, "POST", configmaps, owned).status == 201);

  // The log: the denied list, and the finalizers check allowed by the binding.
  std::ifstream in(server.authorizationLog());
  std::vector<json> decisions;
  for (std::string line; std::getline(in, line);) {
    auto d = json::parse(line);
    if (d["spec"]["user"] == InProcessServer::kServiceAccountUser) decisions.push_back(d);
  }
  REQUIRE_FALSE(decisions.empty());
  CHECK(decisions.front()["spec"]["resourceAttributes"] ==
        json{{"verb", "list"}, {"group", ""}, {"resource", "pods"}});
  CHECK(decisions.front()["status"] == json{{"allowed", false}});
  CHECK(decisions.back()["spec"]["resourceAttributes"] == json{{"verb", "update"},
                                                               {"group", "troupe.dev"},
                                                               {"resource", "trainingjobs"},
                                                               {"subresource", "finalizers"},
                                                               {"namespace", "fixtures"},
                                                               {"name", "j"}});
  CHECK(decisions.back()["status"]["reason"] ==
        "RBAC: allowed by RoleBinding \"op-makes/fixtures\" of Role \"maker\" to ServiceAccount "
        "\"op/sys\"");
}

}  // namespace
}  // namespace troupe::apiserver
