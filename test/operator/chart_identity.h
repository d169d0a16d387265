#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "apiserver/auth/attributes.h"
#include "apiserver/auth/policy_rule.h"

// The identity the Helm chart gives the operator, read from the chart rendered as Helm
// renders it (chart-render, helm/render/) with its default values: the ServiceAccount, the
// RBAC objects that bind it, the rules they grant it, and the leader-election flags of its
// Deployment. The end-to-end fixture applies these objects to `troupe serve` and runs the
// operator with a token of that ServiceAccount, so the operator has exactly the chart's
// permissions.
namespace troupe::operator_runtime::testing {

struct ChartIdentity {
  std::string release = "troupe";
  std::string ns = "troupe-system";
  std::string service_account;  // its name
  // ServiceAccount, ClusterRoles, ClusterRoleBindings, Roles and RoleBindings of the chart.
  std::vector<nlohmann::json> rbac_objects;
  // From the Deployment's arguments.
  std::string leader_election_namespace;
  std::string leader_election_id;

  // system:serviceaccount:<ns>:<name>
  std::string user() const { return "system:serviceaccount:" + ns + ":" + service_account; }
};

// Renders helm/troupe (release "troupe" in "troupe-system"); fails the test if that fails.
ChartIdentity renderChartIdentity();

// One permission: a rule of one verb, one group and one resource (with at most one name),
// and where it comes from ("ClusterRole troupe").
struct Grant {
  apiserver::auth::PolicyRule rule;
  std::string source;
  std::string describe() const;
};

// Every rule of the roles bound to the chart's ServiceAccount, split into single grants.
std::vector<Grant> grantsOf(const ChartIdentity& chart);

// A decision of the authorization log (`troupe serve --authorization-log`).
struct Decision {
  std::string user;
  apiserver::auth::Attributes request;
  bool allowed = false;
  std::string reason;
  std::string describe() const;  // "list services (cluster)", "get pods default/x"
};

std::vector<Decision> readDecisionLog(const std::string& path);

}  // namespace troupe::operator_runtime::testing
