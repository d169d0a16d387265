#include "api/core/container_resources.h"

#include <map>
#include <string_view>

#include "api/field_error.h"
#include "api/names.h"
#include "api/quantity.h"

namespace troupe::api::core {
namespace {

using json = nlohmann::json;

// Kubernetes' IsNativeResource: no prefix, or a kubernetes.io one.
bool isNative(std::string_view name) {
  return name.find('/') == std::string_view::npos ||
         name.find("kubernetes.io/") != std::string_view::npos;
}

bool isHugePages(std::string_view name) { return name.rfind("hugepages-", 0) == 0; }

// Kubernetes' IsOvercommitAllowed: requests may be below limits.
bool overcommitAllowed(std::string_view name) { return isNative(name) && !isHugePages(name); }

// Kubernetes' IsIntegerResourceName, for container resources: the extended ones.
bool wholeUnitsOnly(std::string_view name) {
  return !isNative(name) && name.rfind("requests.", 0) != 0;
}

// Each quantity of `list` ("requests" or "limits") read, or an error for it.
std::map<std::string, Quantity> readList(const json& resources, const char* list,
                                         const std::string& path, std::vector<Error>& errors) {
  std::map<std::string, Quantity> out;
  auto it = resources.find(list);
  if (it == resources.end() || it->is_null()) return out;
  const std::string list_path = childPath(path, list);
  if (!it->is_object()) {
    errors.push_back(typeInvalid(list_path, *it, "must be an object of quantities"));
    return out;
  }
  for (const auto& [name, value] : it->items()) {
    const std::string field = keyPath(list_path, name);
    if (auto why = checkQualifiedName(name)) {
      errors.push_back(invalid(field, name, *why));
      continue;
    }
    auto quantity = Quantity::fromJson(value, field);
    if (!quantity) {
      errors.push_back(quantity.error());
      continue;
    }
    if (quantity->isNegative()) {
      errors.push_back(invalid(field, quantity->toString(), "must be greater than or equal to 0"));
      continue;
    }
    if (wholeUnitsOnly(name) && quantity->milliValue() % 1000 != 0) {
      errors.push_back(invalid(field, quantity->toString(), "must be an integer"));
      continue;
    }
    out.emplace(name, *quantity);
  }
  return out;
}

void validateContainer(const json& container, const std::string& path, std::vector<Error>& errors) {
  if (!container.is_object()) return;
  auto it = container.find("resources");
  if (it == container.end() || it->is_null()) return;
  const std::string resources_path = childPath(path, "resources");
  if (!it->is_object()) {
    errors.push_back(typeInvalid(resources_path, *it, "must be an object"));
    return;
  }
  auto limits = readList(*it, "limits", resources_path, errors);
  auto requests = readList(*it, "requests", resources_path, errors);
  const std::string requests_path = childPath(resources_path, "requests");
  for (const auto& [name, request] : requests) {
    auto limit = limits.find(name);
    if (limit == limits.end()) {
      if (!overcommitAllowed(name)) {
        errors.push_back(required(childPath(resources_path, "limits"),
                                  "Limit must be set for non overcommitable resources"));
      }
      continue;
    }
    if (request != limit->second && !overcommitAllowed(name)) {
      errors.push_back(
          invalid(requests_path, request.toString(),
                  "must be equal to " + name + " limit of " + limit->second.toString()));
    } else if (request > limit->second) {
      errors.push_back(invalid(
          requests_path, request.toString(),
          "must be less than or equal to " + name + " limit of " + limit->second.toString()));
    }
  }
}

}  // namespace

std::vector<Error> validateContainerResources(const json& pod_spec, const std::string& path) {
  std::vector<Error> errors;
  if (!pod_spec.is_object()) return errors;
  for (const char* list : {"initContainers", "containers"}) {
    auto it = pod_spec.find(list);
    if (it == pod_spec.end() || !it->is_array()) continue;
    for (std::size_t i = 0; i < it->size(); ++i)
      validateContainer((*it)[i], indexPath(childPath(path, list), i), errors);
  }
  return errors;
}

}  // namespace troupe::api::core
