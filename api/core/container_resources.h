#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/error.h"

namespace troupe::api::core {

// The checks kube-apiserver makes of the resources of every container of a pod spec
// (ValidateResourceRequirements), on the spec as JSON found at `path` ("spec" for a pod,
// "spec.template.spec" for a TrainingJob's template), every error named by its field:
// - each request and limit is a quantity ("NaN", "" and "1e400" are not), given as a string
//   or a number, and at least 0 (`-8` is not);
// - resources that are not native (extended ones such as nvidia.com/gpu) are whole numbers,
//   and their request equals their limit;
// - a request is at most its limit;
// - resource names are qualified names.
// One difference: kube-apiserver accepts a quantity beyond 2^63 thousandths (it caps binary
// ones, and keeps decimal ones that no scheduler can count); Troupe holds quantities as
// int64 thousandths and refuses those ("quantity is out of range"), as it must to count them.
std::vector<Error> validateContainerResources(const nlohmann::json& pod_spec,
                                              const std::string& path);

}  // namespace troupe::api::core
