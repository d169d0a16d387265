#pragma once

#include <string>

#include "apiserver/auth/token_file.h"

// Who may do what. An admin may do everything; a tenant may use every verb on
// TrainingJobs and PodGroups (and their subresources) in its own namespace, read Queues,
// and read its own Namespace object.
namespace troupe::apiserver::auth {

struct Attributes {
  std::string verb;  // get list watch create update patch delete deletecollection
  std::string group;
  std::string resource;
  std::string subresource;
  std::string ns;
  std::string name;
};

bool allowed(const Identity& identity, const Attributes& attributes);

// The real server's wording: `trainingjobs.troupe.dev "x" is forbidden: User "alice"
// cannot get resource "trainingjobs" in API group "troupe.dev" in the namespace "ns"`.
std::string forbiddenMessage(const Identity& identity, const Attributes& attributes);

}  // namespace troupe::apiserver::auth
