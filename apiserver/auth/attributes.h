#pragma once

#include <string>

namespace troupe::apiserver::auth {

// What a request asks to do, as kube-apiserver's authorizers see it (its
// authorizer.Attributes for a resource request).
struct Attributes {
  std::string verb;  // get list watch create update patch delete deletecollection
  std::string group;
  std::string resource;
  std::string subresource;
  std::string ns;
  std::string name;
};

}  // namespace troupe::apiserver::auth
