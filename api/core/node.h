#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/condition.h"
#include "api/core/pod.h"
#include "api/gpu_topology.h"
#include "api/object_meta.h"
#include "api/resource_list.h"

namespace troupe::api::core {

struct Node {
  ObjectMeta metadata;
  bool unschedulable = false;
  std::vector<Taint> taints;
  ResourceList capacity;
  ResourceList allocatable;
  std::vector<Condition> conditions;

  static Node fromJson(const nlohmann::json& node, std::vector<Error>& errors);

  // Ready condition True.
  bool isReady() const;
  // Whether pods may be placed: ready and not cordoned.
  bool isSchedulable() const { return isReady() && !unschedulable; }
  // The troupe.dev/gpu-topology annotation, parsed; nullopt when absent.
  std::optional<Result<GpuTopology>> gpuTopology() const;
  // A label value, or "" when absent.
  std::string label(const std::string& key) const;
};

}  // namespace troupe::api::core
