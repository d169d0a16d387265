#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/object_meta.h"

namespace troupe::api::core {

// scheduling.k8s.io/v1 PriorityClass: the value a job's priorityClassName stands for.
struct PriorityClass {
  ObjectMeta metadata;
  int32_t value = 0;
  bool global_default = false;
  std::string preemption_policy = "PreemptLowerPriority";  // or Never

  static PriorityClass fromJson(const nlohmann::json& object, std::vector<Error>& errors);
};

}  // namespace troupe::api::core
