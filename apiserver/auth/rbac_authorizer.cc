#include "apiserver/auth/rbac_authorizer.h"

#include <algorithm>

#include "apiserver/auth/policy_rule.h"

namespace troupe::apiserver::auth {

namespace {

using json = nlohmann::json;

constexpr const char* kClusterRoles = "clusterroles.rbac.authorization.k8s.io";
constexpr const char* kClusterRoleBindings = "clusterrolebindings.rbac.authorization.k8s.io";
constexpr const char* kRoles = "roles.rbac.authorization.k8s.io";
constexpr const char* kRoleBindings = "rolebindings.rbac.authorization.k8s.io";

std::string field(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

// The subject of `binding` that names this identity, described as kube describes it
// (`ServiceAccount "name/ns"`, `User "alice"`, `Group "g"`); empty when none does.
// A ServiceAccount subject without a namespace takes the binding's (RoleBindings only).
std::string subjectFor(const json& binding, const Identity& who, const std::string& binding_ns) {
  auto subjects = binding.find("subjects");
  if (subjects == binding.end() || !subjects->is_array()) return "";
  for (const auto& s : *subjects) {
    if (!s.is_object()) continue;
    const auto kind = field(s, "kind");
    const auto name = field(s, "name");
    if (kind == "User" && name == who.user) return "User \"" + name + "\"";
    if (kind == "Group" &&
        std::find(who.groups.begin(), who.groups.end(), name) != who.groups.end())
      return "Group \"" + name + "\"";
    if (kind == "ServiceAccount") {
      auto ns = field(s, "namespace");
      if (ns.empty()) ns = binding_ns;
      if (!ns.empty() && who.user == "system:serviceaccount:" + ns + ":" + name)
        return "ServiceAccount \"" + name + "/" + ns + "\"";
    }
  }
  return "";
}

}  // namespace

Decision RbacAuthorizer::authorize(const Identity& who, const Attributes& request) const {
  auto allows = [&](const json& binding, const std::string& binding_ns) -> bool {
    const auto& ref = binding.value("roleRef", json::object());
    const auto kind = field(ref, "kind");
    ObjectKey key;
    if (kind == "ClusterRole") {
      key = {kClusterRoles, "", field(ref, "name")};
    } else if (kind == "Role" && !binding_ns.empty()) {
      key = {kRoles, binding_ns, field(ref, "name")};
    } else {
      return false;
    }
    auto role = store_.get(key);
    if (!role) return false;
    for (const auto& rule : rulesOf(role->object))
      if (ruleAllows(rule, request)) return true;
    return false;
  };
  auto describe = [](const char* binding_kind, const std::string& binding_name, const json& binding,
                     const std::string& subject) {
    const auto& ref = binding.value("roleRef", json::object());
    return "RBAC: allowed by " + std::string(binding_kind) + " \"" + binding_name + "\" of " +
           field(ref, "kind") + " \"" + field(ref, "name") + "\" to " + subject;
  };

  ListOptions cluster;
  cluster.resource = kClusterRoleBindings;
  if (auto bindings = store_.list(cluster)) {
    for (const auto& item : bindings->items) {
      auto subject = subjectFor(item.object, who, "");
      if (!subject.empty() && allows(item.object, ""))
        return {true, describe("ClusterRoleBinding", item.key.name, item.object, subject)};
    }
  }
  if (request.ns.empty()) return {};
  ListOptions namespaced;
  namespaced.resource = kRoleBindings;
  namespaced.ns = request.ns;
  if (auto bindings = store_.list(namespaced)) {
    for (const auto& item : bindings->items) {
      auto subject = subjectFor(item.object, who, request.ns);
      if (!subject.empty() && allows(item.object, request.ns))
        return {true,
                describe("RoleBinding", item.key.name + "/" + request.ns, item.object, subject)};
    }
  }
  return {};
}

}  // namespace troupe::apiserver::auth
