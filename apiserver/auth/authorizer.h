#pragma once

#include <memory>
#include <string>

#include "apiserver/auth/attributes.h"
#include "apiserver/auth/decision_log.h"
#include "apiserver/auth/rbac_authorizer.h"
#include "apiserver/auth/token_file.h"

// Who may do what. An admin may do everything; a tenant may use every verb on
// TrainingJobs and PodGroups (and their subresources) in its own namespace, read Queues,
// read its own Namespace object, and read the pods of its namespace and their logs; an
// `rbac` identity may do what the stored RBAC objects grant it (rbac_authorizer.h).
namespace troupe::apiserver::auth {

// The fixed rules of the admin and tenant scopes; false for an `rbac` identity.
bool allowed(const Identity& identity, const Attributes& attributes);

class Authorizer {
 public:
  // `log` may be null: decisions are then not recorded.
  Authorizer(ObjectStore& store, std::unique_ptr<DecisionLog> log)
      : rbac_(store), log_(std::move(log)) {}

  Decision authorize(const Identity& identity, const Attributes& attributes);

 private:
  RbacAuthorizer rbac_;
  std::unique_ptr<DecisionLog> log_;
};

// The real server's wording: `trainingjobs.troupe.dev "x" is forbidden: User "alice"
// cannot get resource "trainingjobs" in API group "troupe.dev" in the namespace "ns"`.
std::string forbiddenMessage(const Identity& identity, const Attributes& attributes);

}  // namespace troupe::apiserver::auth
