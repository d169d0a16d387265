#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "controllers/object_list.h"

namespace troupe::controllers {

// Checks the Queue objects as a tree: every parent exists, there are no cycles, and the
// guaranteed quota of a queue's children fits within its own, per resource. Returns the
// invalid queues with the reason; a queue below an invalid one is invalid too (its
// gangs cannot be placed in a tree that does not hold together). Sorted by queue name.
std::map<std::string, Error> validateQueueTree(const ObjectList& queues);

}  // namespace troupe::controllers
