#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/core/pod.h"
#include "api/object_meta.h"

namespace troupe::api {

// What a GPUType names: the nodes whose labels hold every pair of node_labels (as NVIDIA's
// GPU feature discovery sets nvidia.com/gpu.product), and the tolerations a pod placed on
// them gets for their taints.
struct GpuTypeSpec {
  std::map<std::string, std::string> node_labels;
  std::vector<core::Toleration> tolerations;

  // Whether a node with `labels` is of this type.
  bool matches(const std::map<std::string, std::string>& labels) const;
};

// troupe.dev/v1alpha1 GPUType (cluster-scoped). Queues give quotas per type
// (spec.resources[nvidia.com/gpu].gpuTypes), jobs list the types they accept (spec.gpuTypes);
// to the scheduler each type is one more resource, gpuTypeResource(name).
struct GpuType {
  ObjectMeta metadata;
  GpuTypeSpec spec;

  static GpuType fromJson(const nlohmann::json& object, std::vector<Error>& errors);
  nlohmann::json toJson() const;
  std::vector<Error> validate() const;
  std::vector<Error> validateUpdate(const GpuType& old) const;
};

// The resource that stands for the GPUs of type `type`: "gpu.troupe.dev/h100".
std::string gpuTypeResource(std::string_view type);
// Why `name` cannot name a GPU type, or nothing: it must be a DNS label (at most 63
// characters), so that gpuTypeResource(name) is a valid resource name.
std::optional<std::string> checkGpuTypeName(std::string_view name);
// The rules of a list of accepted GPU types at `path` (spec.gpuTypes): names, no repeats,
// at most kMaxAcceptedGpuTypes.
inline constexpr std::size_t kMaxAcceptedGpuTypes = 16;
void validateGpuTypeList(const std::vector<std::string>& types, const std::string& path,
                         std::vector<Error>& errors);

}  // namespace troupe::api
