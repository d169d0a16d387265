#include "api/resource_list.h"

#include "api/field_error.h"
#include "api/names.h"

namespace troupe::api {

Result<ResourceList> addResources(const ResourceList& a, const ResourceList& b) {
  ResourceList out = a;
  for (const auto& [name, q] : b) {
    auto it = out.find(name);
    if (it == out.end()) {
      out.emplace(name, q);
      continue;
    }
    auto sum = it->second.plus(q, name);
    if (!sum) return sum.error();
    it->second = *sum;
  }
  return out;
}

ResourceList maxResources(const ResourceList& a, const ResourceList& b) {
  ResourceList out = a;
  for (const auto& [name, q] : b) {
    auto it = out.find(name);
    if (it == out.end()) {
      out.emplace(name, q);
    } else if (it->second < q) {
      it->second = q;
    }
  }
  return out;
}

nlohmann::json resourcesToJson(const ResourceList& resources) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, q] : resources) out[name] = q.toString();
  return out;
}

void validateResourceNames(const ResourceList& resources, const std::string& path,
                           std::vector<Error>& errors) {
  for (const auto& [name, q] : resources) {
    (void)q;
    if (auto why = checkQualifiedName(name)) errors.push_back(invalid(path, name, *why));
  }
}

}  // namespace troupe::api
