#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "queueing/ids.h"
#include "queueing/resource_vector.h"

namespace troupe::queueing {

class EngineState;

// A level of a gang's path whose limit the gang would pass, in one resource:
// holds + kept + asks > limit.
struct QuotaBreach {
  QueueId queue = kClusterLevel;  // the queue whose limit binds, or kClusterLevel
  std::size_t resource = 0;
  std::int64_t holds = 0;  // what its subtree holds (the cluster: its usable nodes)
  std::int64_t kept = 0;   // what queues inside it, beside the gang's path, keep unlent
  std::int64_t limit = 0;  // its limit (the cluster: the allocatable of its usable nodes)
  std::int64_t asks = 0;   // the gang
  std::int64_t wouldHold() const { return holds + kept + asks; }
};

// Capacity a victim set frees, summed by the victims' (leaf) queues.
using FreedByQueue = std::vector<std::pair<QueueId, ResourceVector>>;

// The quota rule of admission (docs/scheduling.md, "Quota"): a gang of leaf queue q asking
// `request` is admitted only if, for q and for every ancestor A of it, in every resource,
//   holds(A) - freed(A) + kept(A) + request <= limit(A)
// where freed(A) is what `freed` takes off A's subtree (the victims of a preemption, as
// Kueue simulates their removal) and kept(A) is what the queues inside A but off q's path
// keep of their guarantees (kept_guarantee.h); and, where those queues keep anything, at
// the top: kept + request <= the usable nodes' free capacity (the state's, in which a
// preemption search has released its victims already). Returns the first level that
// fails, from q up, the cluster last, resources in slot order; none when all hold.
// Every admission, every growth of an elastic gang and the FIFO baseline check it here.
std::optional<QuotaBreach> quotaBreach(const EngineState& st, QueueId q,
                                       const ResourceVector& request,
                                       const FreedByQueue& freed = {});
// No level of q's path binds a gang asking `more`, with nothing removed.
inline bool withinLimits(const EngineState& st, QueueId q, const ResourceVector& more) {
  return !quotaBreach(st, q, more).has_value();
}

// The same on an empty cluster: nothing runs, every queue keeps all it may keep, and the
// cluster's capacity is the allocatable of its usable nodes (checked in every resource).
// Nothing that runs can bring a gang within a limit it breaks here: it can never be
// admitted under its tree as the queues and nodes are (Inadmissible).
std::optional<QuotaBreach> quotaBreachWhenEmpty(const EngineState& st, QueueId q,
                                                const ResourceVector& request);

// What terminating pods (PodPlacement::terminating) hold, by their gangs' queues: usage
// on its way back, which a gang held back by a limit counts on rather than preempting
// for it. `gangs`: those with terminating pods in the subtree of queue `at` (every one for
// kClusterLevel or kNoQuotaLevel), sorted by name.
struct TerminatingUsage {
  FreedByQueue by_queue;
  std::vector<GangId> gangs;
};
TerminatingUsage terminatingUsage(const EngineState& st, QueueId at);

// The numbers of one level of q's path (a queue on it or kClusterLevel) in resource r as
// the state is now, on an empty cluster when `empty`: what an explanation shows.
QuotaBreach quotaAt(const EngineState& st, QueueId q, const ResourceVector& request, QueueId at,
                    std::size_t r, bool empty);

}  // namespace troupe::queueing
