#include "apiserver/auth/policy_rule.h"

#include <algorithm>

namespace troupe::apiserver::auth {

namespace {

std::vector<std::string> strings(const nlohmann::json& rule, const char* key) {
  std::vector<std::string> out;
  auto it = rule.find(key);
  if (it == rule.end() || !it->is_array()) return out;
  for (const auto& v : *it)
    if (v.is_string()) out.push_back(v.get<std::string>());
  return out;
}

bool has(const std::vector<std::string>& values, const std::string& want) {
  return std::find(values.begin(), values.end(), want) != values.end();
}

bool hasOrAll(const std::vector<std::string>& values, const std::string& want) {
  return has(values, "*") || has(values, want);
}

bool resourceMatches(const PolicyRule& rule, const Attributes& a) {
  const std::string combined =
      a.subresource.empty() ? a.resource : a.resource + "/" + a.subresource;
  for (const auto& r : rule.resources) {
    if (r == "*" || r == combined) return true;
    if (!a.subresource.empty() && r == "*/" + a.subresource) return true;
  }
  return false;
}

}  // namespace

std::vector<PolicyRule> rulesOf(const nlohmann::json& role) {
  std::vector<PolicyRule> rules;
  auto it = role.find("rules");
  if (it == role.end() || !it->is_array()) return rules;
  for (const auto& r : *it) {
    if (!r.is_object()) continue;
    rules.push_back({strings(r, "verbs"), strings(r, "apiGroups"), strings(r, "resources"),
                     strings(r, "resourceNames"), strings(r, "nonResourceURLs")});
  }
  return rules;
}

bool ruleAllows(const PolicyRule& rule, const Attributes& a) {
  if (!hasOrAll(rule.verbs, a.verb)) return false;
  if (!hasOrAll(rule.api_groups, a.group)) return false;
  if (!resourceMatches(rule, a)) return false;
  return rule.resource_names.empty() || (!a.name.empty() && has(rule.resource_names, a.name));
}

}  // namespace troupe::apiserver::auth
