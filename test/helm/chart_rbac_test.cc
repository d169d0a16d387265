#include <catch2/catch.hpp>

#include "test/helm/chart_files.h"

namespace troupe::helm_test {
namespace {

// One permission, spelled "group/resource:verb", with "@name" when the rule is narrowed to
// named objects; the core group is "core".
std::set<std::string> grantsOf(const YAML::Node& role) {
  std::set<std::string> grants;
  for (const auto& rule : role["rules"]) {
    INFO("a rule of " << role["metadata"]["name"].as<std::string>());
    REQUIRE_FALSE(rule["nonResourceURLs"]);
    std::vector<std::string> names = {""};
    if (rule["resourceNames"]) {
      names.clear();
      for (const auto& name : rule["resourceNames"]) names.push_back("@" + name.as<std::string>());
    }
    for (const auto& group : rule["apiGroups"])
      for (const auto& resource : rule["resources"])
        for (const auto& verb : rule["verbs"])
          for (const auto& name : names) {
            auto g = group.as<std::string>();
            grants.insert((g.empty() ? "core" : g) + "/" + resource.as<std::string>() + ":" +
                          verb.as<std::string>() + name);
          }
  }
  return grants;
}

std::set<std::string> expand(
    const std::vector<std::pair<std::string, std::vector<std::string>>>& table) {
  std::set<std::string> grants;
  for (const auto& [resource, verbs] : table)
    for (const auto& verb : verbs) grants.insert(resource + ":" + verb);
  return grants;
}

// Prints the grants that differ, so a failure says what was added or lost.
void checkGrants(const std::set<std::string>& got, const std::set<std::string>& want) {
  for (const auto& grant : got) {
    INFO("granted but not in the table: " << grant);
    CHECK(want.count(grant) == 1);
  }
  for (const auto& grant : want) {
    INFO("in the table but not granted: " << grant);
    CHECK(got.count(grant) == 1);
  }
}

TEST_CASE("the operator's ClusterRole grants exactly what the operator does, nothing wider",
          "[helm][rbac]") {
  auto documents = loadStrippedTemplate("clusterrole.yaml");
  auto role = findObject(documents, "ClusterRole");
  // Why each line exists: docs/cluster-mode.md, "RBAC". Widening this table is a decision.
  auto want = expand({
      // informers: the cluster as the scheduler sees it
      {"core/nodes", {"list", "watch"}},
      {"core/namespaces", {"list", "watch"}},
      {"scheduling.k8s.io/priorityclasses", {"list", "watch"}},
      // TrainingJob pods: create, resize, remove; plain troupe pods are watched and bound
      {"core/pods", {"list", "watch", "create", "delete", "patch"}},
      {"core/pods/binding", {"create"}},
      {"core/pods/eviction", {"create"}},
      // the headless Service of each TrainingJob
      {"core/services", {"create"}},
      // events explaining decisions, in both event APIs
      {"core/events", {"create", "patch"}},
      {"events.k8s.io/events", {"create", "patch"}},
      // Troupe's own objects, read through informers, status written back as merge patches
      {"troupe.dev/trainingjobs", {"list", "watch"}},
      {"troupe.dev/queues", {"list", "watch"}},
      {"troupe.dev/podgroups", {"list", "watch"}},
      {"troupe.dev/trainingjobs/status", {"update", "patch"}},
      {"troupe.dev/queues/status", {"update", "patch"}},
      {"troupe.dev/podgroups/status", {"update", "patch"}},
      // a TrainingJob's PodGroup; the decayed-usage annotation on Queues; TTL deletion
      {"troupe.dev/podgroups", {"create", "patch"}},
      {"troupe.dev/queues", {"patch"}},
      {"troupe.dev/trainingjobs", {"patch", "delete"}},
      // owner references that block deletion
      {"troupe.dev/trainingjobs/finalizers", {"update"}},
  });
  checkGrants(grantsOf(role), want);
}

TEST_CASE("leader election is granted in the release namespace only, on the one Lease",
          "[helm][rbac]") {
  auto documents = loadStrippedTemplate("leader-election-role.yaml");
  auto role = findObject(documents, "Role");
  CHECK(role["metadata"]["namespace"].as<std::string>() == "TPL_.Release.Namespace");
  checkGrants(grantsOf(role), {"coordination.k8s.io/leases:create",
                               "coordination.k8s.io/leases:get@troupe-operator",
                               "coordination.k8s.io/leases:update@troupe-operator"});

  // The Lease named in the Role is the one the Deployment tells the operator to use.
  auto deployment = findObject(loadStrippedTemplate("deployment.yaml"), "Deployment");
  auto args = deployment["spec"]["template"]["spec"]["containers"][0]["args"]
                  .as<std::vector<std::string>>();
  CHECK(std::count(args.begin(), args.end(), "--leader-election-id=troupe-operator") == 1);
  CHECK(std::count(args.begin(), args.end(),
                   "--leader-election-namespace=TPL_.Release.Namespace") == 1);
}

TEST_CASE(
    "each binding ties its role to the operator's ServiceAccount in the release "
    "namespace",
    "[helm][rbac]") {
  struct Case {
    std::string file;
    std::string role_kind;
    std::string binding_kind;
  };
  std::vector<Case> cases = {
      {"clusterrole.yaml", "ClusterRole", "ClusterRoleBinding"},
      {"leader-election-role.yaml", "Role", "RoleBinding"},
  };
  auto deployment = findObject(loadStrippedTemplate("deployment.yaml"), "Deployment");
  auto service_account = deployment["spec"]["template"]["spec"]["serviceAccountName"];
  auto account = findObject(loadStrippedTemplate("serviceaccount.yaml"), "ServiceAccount");
  CHECK(account["metadata"]["name"].as<std::string>() == service_account.as<std::string>());
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.binding_kind) {
      auto documents = loadStrippedTemplate(tc.file);
      auto role = findObject(documents, tc.role_kind);
      auto binding = findObject(documents, tc.binding_kind);
      CHECK(binding["roleRef"]["kind"].as<std::string>() == tc.role_kind);
      CHECK(binding["roleRef"]["name"].as<std::string>() ==
            role["metadata"]["name"].as<std::string>());
      REQUIRE(binding["subjects"].size() == 1);
      auto subject = binding["subjects"][0];
      CHECK(subject["kind"].as<std::string>() == "ServiceAccount");
      CHECK(subject["name"].as<std::string>() == service_account.as<std::string>());
      CHECK(subject["namespace"].as<std::string>() == "TPL_.Release.Namespace");
    }
  }
}

TEST_CASE("users get TrainingJobs and PodGroups through the built-in edit and view roles",
          "[helm][rbac]") {
  auto documents = loadStrippedTemplate("user-roles.yaml");
  auto edit = findObject(documents, "ClusterRole", "-edit");
  auto view = findObject(documents, "ClusterRole", "-view");
  CHECK(
      edit["metadata"]["labels"]["rbac.authorization.k8s.io/aggregate-to-edit"].as<std::string>() ==
      "true");
  CHECK(
      view["metadata"]["labels"]["rbac.authorization.k8s.io/aggregate-to-view"].as<std::string>() ==
      "true");
  std::vector<std::string> write = {"get",    "list",  "watch",  "create",
                                    "update", "patch", "delete", "deletecollection"};
  checkGrants(grantsOf(edit), expand({
                                  {"troupe.dev/trainingjobs", write},
                                  {"troupe.dev/podgroups", write},
                                  {"troupe.dev/trainingjobs/scale", {"get", "update", "patch"}},
                                  {"troupe.dev/queues", {"get", "list", "watch"}},
                              }));
  checkGrants(grantsOf(view), expand({
                                  {"troupe.dev/trainingjobs", {"get", "list", "watch"}},
                                  {"troupe.dev/podgroups", {"get", "list", "watch"}},
                                  {"troupe.dev/queues", {"get", "list", "watch"}},
                                  {"troupe.dev/trainingjobs/status", {"get"}},
                                  {"troupe.dev/podgroups/status", {"get"}},
                                  {"troupe.dev/queues/status", {"get"}},
                              }));
}

}  // namespace
}  // namespace troupe::helm_test
