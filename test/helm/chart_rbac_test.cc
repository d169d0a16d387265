#include <catch2/catch.hpp>

#include "test/helm/chart_files.h"

// The chart's RBAC objects as Helm renders them. Which permissions the operator's
// ClusterRole and Role hold is not a table here: the operator's end-to-end tests run it
// under exactly those rules and fail on a request they do not allow and on a rule no
// request uses (test/operator/chart_rules_e2e_test.cc).
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

std::vector<std::string> argsOf(const YAML::Node& deployment) {
  return deployment["spec"]["template"]["spec"]["containers"][0]["args"]
      .as<std::vector<std::string>>();
}

TEST_CASE("the operator's rules name no wildcard, no Secret and no ConfigMap", "[helm][rbac]") {
  auto documents = renderChart();
  auto role = findObject(documents, "ClusterRole", kReleaseName);
  for (const auto& grant : grantsOf(role)) {
    INFO(grant);
    CHECK(grant.find('*') == std::string::npos);
    CHECK(grant.find("secrets") == std::string::npos);
    CHECK(grant.find("configmaps") == std::string::npos);
  }
}

TEST_CASE("leader election is granted in the release namespace only, on the one Lease",
          "[helm][rbac]") {
  auto documents = renderChart();
  auto role = findObject(documents, "Role", "-leader-election");
  CHECK(role["metadata"]["namespace"].as<std::string>() == kReleaseNamespace);
  checkGrants(grantsOf(role), {"coordination.k8s.io/leases:create",
                               "coordination.k8s.io/leases:get@troupe-operator",
                               "coordination.k8s.io/leases:update@troupe-operator"});

  // The Lease named in the Role is the one the Deployment tells the operator to use.
  auto args = argsOf(findObject(documents, "Deployment"));
  CHECK(std::count(args.begin(), args.end(), "--leader-election-id=troupe-operator") == 1);
  CHECK(std::count(args.begin(), args.end(),
                   std::string("--leader-election-namespace=") + kReleaseNamespace) == 1);
}

TEST_CASE(
    "each binding ties its role to the operator's ServiceAccount in the release "
    "namespace",
    "[helm][rbac]") {
  struct Case {
    std::string role_kind;
    std::string binding_kind;
    std::string name_suffix;
  };
  std::vector<Case> cases = {
      {"ClusterRole", "ClusterRoleBinding", kReleaseName},
      {"Role", "RoleBinding", "-leader-election"},
  };
  for (const std::string values : {"", "examples/cluster-mode/values-two-level-org.yaml"}) {
    auto documents = values.empty() ? renderChart() : renderChart({values});
    auto deployment = findObject(documents, "Deployment");
    auto service_account = deployment["spec"]["template"]["spec"]["serviceAccountName"];
    auto account = findObject(documents, "ServiceAccount");
    CHECK(account["metadata"]["name"].as<std::string>() == service_account.as<std::string>());
    for (const auto& tc : cases) {
      DYNAMIC_SECTION(tc.binding_kind << (values.empty() ? "" : " with " + values)) {
        auto role = findObject(documents, tc.role_kind, tc.name_suffix);
        auto binding = findObject(documents, tc.binding_kind, tc.name_suffix);
        CHECK(binding["roleRef"]["kind"].as<std::string>() == tc.role_kind);
        CHECK(binding["roleRef"]["name"].as<std::string>() ==
              role["metadata"]["name"].as<std::string>());
        REQUIRE(binding["subjects"].size() == 1);
        auto subject = binding["subjects"][0];
        CHECK(subject["kind"].as<std::string>() == "ServiceAccount");
        CHECK(subject["name"].as<std::string>() == service_account.as<std::string>());
        CHECK(subject["namespace"].as<std::string>() == kReleaseNamespace);
      }
    }
  }
}

TEST_CASE("users get TrainingJobs and PodGroups through the built-in edit and view roles",
          "[helm][rbac]") {
  auto documents = renderChart();
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
                                  {"troupe.dev/gputypes", {"get", "list", "watch"}},
                              }));
  checkGrants(grantsOf(view), expand({
                                  {"troupe.dev/trainingjobs", {"get", "list", "watch"}},
                                  {"troupe.dev/podgroups", {"get", "list", "watch"}},
                                  {"troupe.dev/queues", {"get", "list", "watch"}},
                                  {"troupe.dev/gputypes", {"get", "list", "watch"}},
                                  {"troupe.dev/trainingjobs/status", {"get"}},
                                  {"troupe.dev/podgroups/status", {"get"}},
                                  {"troupe.dev/queues/status", {"get"}},
                              }));
}

}  // namespace
}  // namespace troupe::helm_test

namespace troupe::helm_test {
namespace {

// The operator is no exempt identity: the API server's priority and fairness sees its
// ServiceAccount and gives it a level of its own shaped as kube-scheduler's workload-high.
TEST_CASE("a FlowSchema sends the operator's ServiceAccount to a priority level of its own",
          "[helm][rbac][flow-control]") {
  struct Case {
    std::string name;
    std::vector<std::string> api_versions;
    std::string want_api_version;
  };
  const std::vector<Case> cases = {
      {"Kubernetes 1.26 to 1.28", {}, "flowcontrol.apiserver.k8s.io/v1beta3"},
      {"a cluster that serves v1",
       {"flowcontrol.apiserver.k8s.io/v1"},
       "flowcontrol.apiserver.k8s.io/v1"},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      auto documents = renderChart({}, tc.api_versions);
      auto schema = findObject(documents, "FlowSchema", kReleaseName);
      auto level = findObject(documents, "PriorityLevelConfiguration", kReleaseName);
      CHECK(schema["apiVersion"].as<std::string>() == tc.want_api_version);
      CHECK(level["apiVersion"].as<std::string>() == tc.want_api_version);
      CHECK(schema["spec"]["priorityLevelConfiguration"]["name"].as<std::string>() ==
            level["metadata"]["name"].as<std::string>());
      // workload-high's shape: limited, queued, 40 shares of which half may be lent.
      CHECK(level["spec"]["type"].as<std::string>() == "Limited");
      CHECK(level["spec"]["limited"]["nominalConcurrencyShares"].as<int>() == 40);
      CHECK(level["spec"]["limited"]["limitResponse"]["type"].as<std::string>() == "Queue");
      // Before the cluster's `service-accounts` schema (9000) and its catch-all.
      CHECK(schema["spec"]["matchingPrecedence"].as<int>() < 9000);
      REQUIRE(schema["spec"]["rules"].size() == 1);
      auto subjects = schema["spec"]["rules"][0]["subjects"];
      REQUIRE(subjects.size() == 1);
      auto deployment = findObject(documents, "Deployment");
      CHECK(subjects[0]["kind"].as<std::string>() == "ServiceAccount");
      CHECK(subjects[0]["serviceAccount"]["name"].as<std::string>() ==
            deployment["spec"]["template"]["spec"]["serviceAccountName"].as<std::string>());
      CHECK(subjects[0]["serviceAccount"]["namespace"].as<std::string>() == kReleaseNamespace);
    }
  }
}

}  // namespace
}  // namespace troupe::helm_test
