#pragma once

#include <nlohmann/json.hpp>

#include <string_view>

#include "common/result.h"
#include "queueing/resource_vector.h"

// API resource lists ({"nvidia.com/gpu": "8", "cpu": "500m"}) to the engine's resource
// vectors and back. Units in the engine: GPUs and extended resources are whole counts,
// CPU is millicores, memory is bytes. The "pods" resource is not scheduled on and ignored.
// Back, nvidia.com/gpu is read from troupe.dev/gpu-milli when the vector has it, so that
// fractions of a GPU show ("1500m" is 1.5 GPUs).
namespace troupe::controllers {

// `field` names the list in errors ("spec.containers[0].resources.requests").
Result<queueing::ResourceVector> toResourceVector(const nlohmann::json& list,
                                                  queueing::ResourceNames& names,
                                                  std::string_view field);
nlohmann::json toResourceList(const queueing::ResourceVector& vector,
                              const queueing::ResourceNames& names);

// What one pod asks of a node, as kube-scheduler computes it: the sum of its containers'
// requests (a container's limits stand in for requests it does not give), or the largest
// init container's, whichever is larger per resource; plus spec.overhead.
Result<queueing::ResourceVector> podRequests(const nlohmann::json& pod,
                                             queueing::ResourceNames& names);

}  // namespace troupe::controllers
