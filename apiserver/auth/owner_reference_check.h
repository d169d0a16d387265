#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "apiserver/auth/attributes.h"
#include "apiserver/registry/resource_registry.h"
#include "common/result.h"

// kube-apiserver's OwnerReferencesPermissionEnforcement admission, for creates: an owner
// reference with blockOwnerDeletion set holds up the owner's deletion, so whoever sets one
// must be allowed to update the owner's finalizers. A client that creates objects owned by
// others (the operator's pods, Services and PodGroups owned by a TrainingJob or a Pod)
// needs `update` on `<owner>/finalizers` wherever the plugin is on; troupe serve always
// checks it, so RBAC rules written against it hold on such clusters too.
namespace troupe::apiserver::auth {

// The requests to authorise before `object` may be created in `ns`: `update` of the
// `finalizers` subresource of each owner whose reference sets blockOwnerDeletion. An
// owner of a kind the server does not serve is a Forbidden error, as on the real server.
Result<std::vector<Attributes>> ownerFinalizerRequests(const nlohmann::json& object,
                                                       const std::string& ns,
                                                       const ResourceRegistry& registry);

}  // namespace troupe::apiserver::auth
