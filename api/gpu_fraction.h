#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "api/core/pod.h"
#include "common/error.h"
#include "common/result.h"

// The troupe.dev/gpu-fraction pod annotation: a pod asks for a fraction of one GPU, shared
// with other such pods, instead of whole nvidia.com/gpu.
namespace troupe::api {

// Thousandths of one GPU: what the fraction is counted in (troupe.dev/gpu-milli).
inline constexpr std::int32_t kGpuMilliPerGpu = 1000;

// "0.5" -> 500: a decimal in (0, 1) with at most 3 decimals ("0.25", ".5", "0.125").
// `field` names the annotation in the error.
Result<std::int32_t> parseGpuFraction(std::string_view text, const std::string& field);

// Checks the annotation of a pod (or a pod template) with these annotations and spec: it
// parses, and the pod asks for no nvidia.com/gpu beside it. `meta_path` is the metadata's
// path ("metadata", "spec.template.metadata"), `spec_path` the spec's.
void validateGpuFraction(const std::map<std::string, std::string>& annotations,
                         const core::PodSpec& spec, const std::string& meta_path,
                         const std::string& spec_path, std::vector<Error>& errors);

}  // namespace troupe::api
