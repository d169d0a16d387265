#pragma once

#include <string>

#include "apiserver/http/http_message.h"
#include "apiserver/registry/resource_registry.h"

// Discovery: /version, /api, /apis (plain and aggregated v2/v2beta1), /apis/<group>,
// and the APIResourceList of every group/version.
namespace troupe::apiserver {

struct VersionInfo {
  std::string major = "1";
  std::string minor = "28";  // picks the kubectl the dispatcher runs
  std::string git_version = "v1.28.7";
};

http::Response handleVersion(const VersionInfo& version);
http::Response handleCoreDiscovery(const ResourceRegistry& registry, const http::Request& request,
                                   const std::string& server_address);
http::Response handleGroupsDiscovery(const ResourceRegistry& registry,
                                     const http::Request& request);
http::Response handleGroupDiscovery(const ResourceRegistry& registry, const std::string& group);
http::Response handleResourceList(const ResourceRegistry& registry, const std::string& group,
                                  const std::string& version);

}  // namespace troupe::apiserver
