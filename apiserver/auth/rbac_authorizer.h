#pragma once

#include <string>

#include "apiserver/auth/attributes.h"
#include "apiserver/auth/token_file.h"
#include "apiserver/storage/object_store.h"

// kube-apiserver's RBAC authorizer over the rbac.authorization.k8s.io/v1 objects stored in
// the server: a request is allowed when a ClusterRoleBinding, or a RoleBinding in the
// request's namespace, names the user (kind User), one of its groups (Group) or its
// ServiceAccount (kind ServiceAccount: the user system:serviceaccount:<ns>:<name>), and a
// rule of the ClusterRole or Role it refers to allows the request (policy_rule.h). There is
// no deny; a binding whose role is missing grants nothing. ClusterRoles' aggregationRule is
// not evaluated: `rules` is what counts, as kube's aggregation controller writes it there.
namespace troupe::apiserver::auth {

struct Decision {
  bool allowed = false;
  // As kube's authorizer words it: `RBAC: allowed by ClusterRoleBinding "b" of ClusterRole
  // "r" to ServiceAccount "name/ns"`; empty when nothing allowed the request.
  std::string reason;
};

class RbacAuthorizer {
 public:
  explicit RbacAuthorizer(ObjectStore& store) : store_(store) {}

  // Reads the bindings and roles at each call, so a change applies to the next request.
  Decision authorize(const Identity& identity, const Attributes& request) const;

 private:
  ObjectStore& store_;
};

}  // namespace troupe::apiserver::auth
