#pragma once

#include <string>

#include "apiserver/http/http_message.h"
#include "apiserver/registry/resource_registry.h"

// OpenAPI v3 for the custom resources (what `kubectl explain` and client-side apply
// read): the index at /openapi/v3 and one document per group/version. /openapi/v2 is
// answered 404, which kubectl treats as "no v2 schema" and gets on with.
namespace troupe::apiserver {

http::Response handleOpenApiV3Index(const ResourceRegistry& registry);
http::Response handleOpenApiV3Document(const ResourceRegistry& registry, const std::string& path);
// The document for one group/version, built from the CRD schemas.
nlohmann::json openApiV3Document(const ResourceRegistry& registry, const std::string& group,
                                 const std::string& version);

}  // namespace troupe::apiserver
