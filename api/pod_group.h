#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/condition.h"
#include "api/object_meta.h"
#include "api/resource_list.h"

namespace troupe::api {

struct PodGroupSpec {
  int32_t min_member = 0;
  std::string queue;
  std::string priority_class_name;
  ResourceList min_resources;                       // empty: the sum of the member pods' requests
  std::optional<int32_t> schedule_timeout_seconds;  // unset: wait indefinitely
  // The GPU types the gang accepts, most preferred first; empty: any (docs/gpu-types.md).
  std::vector<std::string> gpu_types;
};

enum class PodGroupPhase { Pending, Admitted, Running, Succeeded, Failed };
const char* toString(PodGroupPhase phase);
std::optional<PodGroupPhase> parsePodGroupPhase(const std::string& text);

struct PodGroupStatus {
  int64_t observed_generation = 0;
  std::optional<PodGroupPhase> phase;
  int32_t scheduled = 0;
  int32_t running = 0;
  int32_t succeeded = 0;
  int32_t failed = 0;
  std::vector<Condition> conditions;
  std::string gpu_type;  // the GPUType the gang runs on; empty: none (no GPUs, or no types)
};

// troupe.dev/v1alpha1 PodGroup (namespaced). Pods join with the label
// troupe.dev/pod-group: <name> and spec.schedulerName: troupe.
struct PodGroup {
  ObjectMeta metadata;
  PodGroupSpec spec;
  PodGroupStatus status;

  static PodGroup fromJson(const nlohmann::json& object, std::vector<Error>& errors);
  nlohmann::json toJson() const;
  std::vector<Error> validate() const;
  std::vector<Error> validateUpdate(const PodGroup& old) const;
};

}  // namespace troupe::api
