#pragma once

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "queueing/engine_state.h"
#include "queueing/victim.h"

namespace troupe::queueing {

// One way to free capacity for a preemptor: evict a running gang, or remove one surplus
// pod of an elastic one.
struct Candidate {
  Victim victim;
  QueueId queue = -1;
  ResourceVector frees;
  // Cost order: shrinks before evictions, then lower priority, then less run time lost
  // (the later start first: the same order at any `now`), then name (of victim.gang). A
  // shrink removes one pod: the gang's last surplus pods go first.
  std::tuple<int, std::int32_t, Seconds, std::int64_t> cost;  // kind, priority, -start, -pod
  // kind: 0 one elastic pod, 1 a whole gang taken back by reclaim, 2 a whole gang of the
  // preemptor's own queue
};

// A total order: no two candidates cost the same (names are unique, pod indexes differ).
bool cheaper(const EngineState& st, const Candidate& a, const Candidate& b);

// What a source queue offers reclaim searches: its running gangs that may be reclaimed
// whatever the preemptor (preemptible, ran at least the queue's minRuntimeSeconds), as
// candidates, and the counts a search reports when it finds none. Which of them are useful
// depends on the preemptor (the nodes its pods may use), so each candidate carries what
// makes that test cheap.
struct SourceCandidates {
  // What it was built from; it holds while none of these moved (CandidatePool::of).
  bool built = false;
  std::uint64_t running_version = 0;  // the source queue's
  std::uint64_t node_epoch = 0;       // node usability
  std::int64_t cycle = -1;            // which gangs "this cycle" admitted
  // What running gangs not admitted this cycle offer, cheapest first (cheaper()): sorted
  // once per build, so a search merges the sources' runs instead of ordering every
  // candidate again.
  std::vector<Candidate> candidates;
  // Per candidate: its gang has a pod on a usable node (usefulness for a preemptor whose
  // pods may use every usable node).
  std::vector<std::uint8_t> on_usable;
  // Reclaimable gangs the cycle admitted (never victims in the cycle that admitted them),
  // each with whether it has a pod on a usable node.
  std::vector<std::pair<GangId, std::uint8_t>> admitted_now;
  // Gangs not preemptible, protected by minRuntimeSeconds, or not reclaimable
  // (mayBeReclaimed, preemption_rules.h).
  std::size_t protected_count = 0;
  // The earliest time one protected by minRuntimeSeconds becomes preemptible.
  Seconds protected_until = kNever;
};

// The reclaim candidates of every source queue, shared by the preemption searches of a
// cycle and of the cycles after it, instead of walking each source queue's running gangs
// again for every search. A source queue's entry is rebuilt when what it was built from
// moved:
//  - its running set or the pods of one of its running gangs (QueueState::running_version:
//    an admission, eviction, resize or removal, or a change of the queue's spec);
//  - node usability (node_epoch), which decides `on_usable`;
//  - time, once a protected gang comes of age (protected_until);
//  - the cycle, when it held gangs admitted in the cycle it was built in.
// Nothing else it holds depends on the time or the cycle: the cost order uses start times.
class CandidatePool {
 public:
  // The candidates queue `vq` offers at time `now` in the state's current cycle.
  const SourceCandidates& of(const EngineState& st, QueueId vq, Seconds now);

  // Entries built so far (a first build or a rebuild), for tests.
  std::size_t builds() const { return builds_; }

 private:
  void build(const EngineState& st, QueueId vq, Seconds now, SourceCandidates& out);

  std::vector<SourceCandidates> by_queue_;  // by queue id
  std::size_t builds_ = 0;
};

// Appends the candidates running gang `v` of queue `vq` offers (its surplus pods, then
// the whole gang), with `reason`.
void appendCandidates(const EngineState& st, GangId v, QueueId vq, PreemptionReason reason,
                      std::vector<Candidate>& out);

}  // namespace troupe::queueing
