#pragma once

#include <nlohmann/json.hpp>

#include <vector>

#include "apiserver/objects/api_status.h"
#include "apiserver/registry/resource_kind.h"

// The quantities of an object being written, checked before it is stored, each bad one a
// cause naming its field: a pod's container resources as kube-apiserver checks them, the
// same in a TrainingJob's pod template (as the real server checks the template of a Job or
// Deployment), and the quotas of Queues and PodGroups. A quantity Troupe cannot count
// ("NaN", "-8", "1e400", "99999999999999999999Ti") would otherwise be stored, and the job
// or pod asking for it would wait forever with no reason given.
namespace troupe::apiserver {

std::vector<Cause> checkQuantities(const ResourceKind& kind, const nlohmann::json& object);

}  // namespace troupe::apiserver
