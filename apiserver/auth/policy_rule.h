#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "apiserver/auth/attributes.h"

// One rule of an RBAC ClusterRole or Role (rbac.authorization.k8s.io/v1 PolicyRule) and
// whether it allows a request, by kube-apiserver's RBAC rules:
//  - verbs and apiGroups match by equality or "*";
//  - resources match "*", the requested "resource" or "resource/subresource", or
//    "*/subresource";
//  - resourceNames, when present, must hold the request's name (so a rule with names never
//    allows a request without one: list, watch, create);
//  - nonResourceURLs rules never match a resource request.
namespace troupe::apiserver::auth {

struct PolicyRule {
  std::vector<std::string> verbs;
  std::vector<std::string> api_groups;
  std::vector<std::string> resources;
  std::vector<std::string> resource_names;
  std::vector<std::string> non_resource_urls;
};

// The rules of a role object (`rules`); entries that are not lists of strings are read
// as empty, which matches nothing.
std::vector<PolicyRule> rulesOf(const nlohmann::json& role);

bool ruleAllows(const PolicyRule& rule, const Attributes& request);

}  // namespace troupe::apiserver::auth
