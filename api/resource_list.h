#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/quantity.h"
#include "common/result.h"

namespace troupe::api {

// Resource name -> quantity, ordered by name (a total order for everything built on it).
using ResourceList = std::map<std::string, Quantity>;

// a + b per resource; overflow is an error naming the resource.
Result<ResourceList> addResources(const ResourceList& a, const ResourceList& b);
// max(a, b) per resource.
ResourceList maxResources(const ResourceList& a, const ResourceList& b);
// {"cpu":"500m","nvidia.com/gpu":"8"}: canonical quantity strings.
nlohmann::json resourcesToJson(const ResourceList& resources);
// Checks every name is a valid qualified resource name, appending errors under `path`.
void validateResourceNames(const ResourceList& resources, const std::string& path,
                           std::vector<Error>& errors);

}  // namespace troupe::api
