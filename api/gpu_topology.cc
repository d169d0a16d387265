#include "api/gpu_topology.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <set>

#include "api/field_error.h"

namespace troupe::api {
namespace {

Result<std::vector<std::vector<int>>> parseGroups(const nlohmann::json& value,
                                                  const std::string& path) {
  if (!value.is_array()) {
    return typeInvalid(path, value.is_null() ? "null" : value.type_name(),
                       fmt::format("{} must be an array of arrays of GPU indices", path));
  }
  std::vector<std::vector<int>> groups;
  std::set<int> seen;
  for (size_t i = 0; i < value.size(); ++i) {
    const auto& group = value[i];
    std::string group_path = indexPath(path, i);
    if (!group.is_array()) {
      return typeInvalid(group_path, group.type_name(),
                         fmt::format("{} must be an array of GPU indices", group_path));
    }
    std::vector<int> indices;
    for (size_t j = 0; j < group.size(); ++j) {
      const auto& index = group[j];
      std::string index_path = indexPath(group_path, j);
      if (!index.is_number_integer() || index.get<int64_t>() < 0 || index.get<int64_t>() > 1023) {
        return invalid(index_path, index, "must be a GPU index between 0 and 1023");
      }
      int gpu = static_cast<int>(index.get<int64_t>());
      if (!seen.insert(gpu).second) return duplicate(index_path, index);
      indices.push_back(gpu);
    }
    groups.push_back(std::move(indices));
  }
  return groups;
}

}  // namespace

Result<GpuTopology> parseGpuTopology(std::string_view annotation, std::string_view field) {
  std::string path(field);
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(annotation);
  } catch (const nlohmann::json::exception& e) {
    return invalid(path, std::string(annotation), fmt::format("must be JSON: {}", e.what()));
  }
  if (!doc.is_object()) {
    return invalid(path, std::string(annotation),
                   "must be a JSON object with \"nvlinkIslands\" and \"numa\"");
  }
  GpuTopology topology;
  for (const auto& [key, value] : doc.items()) {
    if (key == "nvlinkIslands") {
      auto groups = parseGroups(value, childPath(path, key));
      if (!groups) return groups.error();
      topology.nvlink_islands = std::move(*groups);
    } else if (key == "numa") {
      auto groups = parseGroups(value, childPath(path, key));
      if (!groups) return groups.error();
      topology.numa = std::move(*groups);
    } else {
      return notSupported(childPath(path, key), key, {"nvlinkIslands", "numa"});
    }
  }
  return topology;
}

std::string formatGpuTopology(const GpuTopology& topology) {
  nlohmann::ordered_json doc;
  doc["nvlinkIslands"] = topology.nvlink_islands;
  doc["numa"] = topology.numa;
  return doc.dump();
}

}  // namespace troupe::api
