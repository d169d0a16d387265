#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "controllers/object_list.h"

namespace troupe::controllers {

// The status a PodGroup should have, from its member pods:
// - scheduled (bound), running, succeeded, failed counts;
// - phase: Failed once a member failed and none holds a node, or when
//   scheduleTimeoutSeconds passed since creation with no member ever bound;
//   Succeeded once at least minMember succeeded and none holds a node; Running when at
//   least minMember run; Admitted when any is bound; Pending otherwise, except that a
//   new group's first status waits (controllers/first_status.h): the status is returned
//   unchanged, and the caller asks again after firstStatusWait().
// Succeeded and Failed are final. Conditions the scheduler loop owns (Preempted) are
// kept as they are.
nlohmann::json computePodGroupStatus(const nlohmann::json& pod_group, const ObjectList& pods,
                                     std::int64_t now);

}  // namespace troupe::controllers
