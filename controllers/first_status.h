#pragma once

#include <cstdint>
#include <optional>

#include <nlohmann/json.hpp>

// When a new TrainingJob or PodGroup gets its first status.
//
// A new gang is usually admitted by the next scheduling cycle, a fraction of a second after
// its creation. Writing its waiting status (Queued, Pending) before that decision costs a
// durable write, a watch event and a reconcile per object, overwritten by the admission at
// once: for a TrainingJob, its own and its PodGroup's. So the first status of an object that has
// never had one waits, while its gang has nothing bound, until either
// - the scheduler loop has explained why the gang waits (status.pending on the object), or
// - kFirstStatusDelaySeconds have passed since its creation;
// a gang admitted before then goes straight to Admitted. This is also what Kueue does: a
// Workload gets its pending condition from the scheduler's first attempt, not before.
namespace troupe::controllers {

inline constexpr std::int64_t kFirstStatusDelaySeconds = 2;

// Seconds until `object`'s first waiting status is due, if it still waits: it has no
// status.phase, no status.pending, and was created less than kFirstStatusDelaySeconds
// before `now` (creationTimestamp has whole seconds, so the wait is 1 to 2 s). An object
// created after `now`, by a clock ahead of this one, does not wait. nullopt when the
// status is to be written now.
std::optional<std::int64_t> firstStatusWait(const nlohmann::json& object, std::int64_t now);

}  // namespace troupe::controllers
