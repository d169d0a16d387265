#pragma once

#include "common/result.h"
#include "queueing/policy.h"
#include "queueing/snapshot.h"

// Checks of the engine's input, with errors that name the field and the rule.
namespace troupe::queueing {

Status validateNode(const NodeSpec& node);
Status validateQueue(const QueueSpec& queue);
Status validateGang(const GangSpec& gang, const Policy& policy);

}  // namespace troupe::queueing
