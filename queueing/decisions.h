#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "queueing/resource_vector.h"
#include "queueing/snapshot.h"

// The engine's output: what to do this cycle and, for every gang left waiting, why.
namespace troupe::queueing {

// Start a pending gang: every pod listed, on its node, with its GPUs. Evictions listed
// in Decisions::preemptions with this gang as preemptor must finish first.
struct Admission {
  std::string gang;
  std::string queue;
  std::vector<PodPlacement> pods;
  std::vector<std::int32_t> pod_set_counts;  // pods admitted per pod set
  // The variant admitted (GangSpec::variant or one of its alternatives' names); the pods
  // are that variant's pod sets. "" for a gang without alternatives.
  std::string variant;
};

enum class PreemptionReason {
  Reclaim,      // the preemptor's queue is below its fair share, the victim's above
  WithinQueue,  // same queue, the preemptor has a higher priority
};

// Evict a whole running gang. The engine requeues it at its original submit time. The
// preemptor is admitted in the same cycle, unless its placement also counts on capacity
// terminating pods still hold: then it waits for them (WaitingForReclaim) and is admitted
// in a cycle after they are gone.
struct Preemption {
  std::string gang;
  std::string queue;
  std::string preemptor;
  PreemptionReason reason = PreemptionReason::Reclaim;
};

// Grow or shrink a running elastic gang: start `added` pods, stop `removed` ones.
struct Resize {
  std::string gang;
  std::string queue;
  std::vector<std::int32_t> pod_set_counts;  // the sizes after the resize
  std::vector<PodPlacement> added;
  std::vector<PodPlacement> removed;
  std::string preemptor;  // set when a shrink serves a reclaim
};

enum class PendingReason {
  QueueNotFound,          // the gang names no leaf queue
  InvalidGang,            // the gang's spec breaks a rule (see message)
  QueueAtLimit,           // admitting it would take its queue, an ancestor (or, through
                          // lendingLimits, the cluster) past a limit, and no victim may
                          // be taken to bring it within
  OverFairShare,          // it does not fit, and its queue may not reclaim: over fair share
  NoPlacement,            // not enough free capacity where its pods may run, right now
  TopologyUnsatisfiable,  // as NoPlacement, for a gang whose topology is required: no
                          // domain of its level has room for it right now
  Inadmissible,           // it can never be admitted, even on an empty cluster, as the
                          // queues and nodes are: larger than a limit on its path or the
                          // cluster, than any domain of its required level, than any node
                          // it may use, or asking a resource no node has
  WaitingForReclaim,      // it could reclaim, but not without breaking a rule, or it waits
                          // for terminating pods to free what it needs (see message)
  BlockedByStarvingJob,   // capacity it could use is reserved for a starving gang
  BlockedByQueueHead,     // FIFO: an earlier gang could not be admitted
  Reserved,               // starving: capacity is being held for it as it frees
  Preempted,              // evicted this cycle; waits to be placed again
};

// Every PendingReason, in declaration order (docs/api.md lists each; a test checks).
inline constexpr PendingReason kPendingReasons[] = {
    PendingReason::QueueNotFound,
    PendingReason::InvalidGang,
    PendingReason::QueueAtLimit,
    PendingReason::OverFairShare,
    PendingReason::NoPlacement,
    PendingReason::TopologyUnsatisfiable,
    PendingReason::Inadmissible,
    PendingReason::WaitingForReclaim,
    PendingReason::BlockedByStarvingJob,
    PendingReason::BlockedByQueueHead,
    PendingReason::Reserved,
    PendingReason::Preempted,
};

const char* pendingReasonName(PendingReason reason);

// The numbers behind a pending reason, for the "why pending" status users read.
struct PendingExplanation {
  std::string gang;
  std::string queue;
  // The variant it waits for (its numbers below are that variant's); "" for a gang
  // without alternatives.
  std::string variant;
  PendingReason reason = PendingReason::NoPlacement;
  // The queue, in the gang's dominant resource. The engine names the fixed slots only;
  // callers holding the ResourceNames table name extended ones (controllers/pending_status.h).
  std::string dominant_resource;
  std::int32_t dominant_slot = 0;  // dominant_resource's slot (ResourceVector)
  std::int64_t queue_guaranteed = 0;
  std::int64_t queue_allocated = 0;
  std::int64_t queue_limit = 0;
  std::int64_t queue_fair_share = 0;
  ResourceVector request;                     // the gang at its minimum size
  std::int64_t largest_free_domain_pods = 0;  // most pods of its first shape one domain holds
  std::string largest_free_domain;            // that domain ("" for the whole cluster)
  std::string blocking_gang;  // BlockedByStarvingJob / BlockedByQueueHead; WaitingForReclaim:
                              // the first gang whose terminating pods it waits for
  std::string detail;         // a rule broken (InvalidGang, WaitingForReclaim); QueueAtLimit:
                              // why no victim may be taken; Inadmissible: what never fits

  // QueueAtLimit, and Inadmissible for a limit (limited_by_quota): the level whose limit
  // binds ("" for the cluster, where lendingLimits bind) in `limit_resource`. Admitting
  // the gang would take it to limit_holds + limit_kept + limit_asks > limit_of: what its
  // subtree holds (nothing, for Inadmissible), what queues inside it beside the gang's path
  // keep unlent of their guarantees, and the gang's request.
  bool limited_by_quota = false;
  std::string limit_queue;
  std::string limit_resource;
  std::int32_t limit_slot = 0;  // limit_resource's slot (ResourceVector)
  std::int64_t limit_holds = 0;
  std::int64_t limit_kept = 0;
  std::int64_t limit_asks = 0;
  std::int64_t limit_of = 0;

  // Placement (NoPlacement, TopologyUnsatisfiable, Inadmissible when no placement exists):
  // the gang's shape and what the nodes its pods may use offer, in dominant_resource.
  std::int32_t pods = 0;            // its first pod set, at its minimum
  std::int64_t pod_request = 0;     // one such pod
  std::string topology_level;       // its required topology level, "" for none
  std::int32_t eligible_nodes = 0;  // usable nodes its first pod set may use
  std::int64_t largest_node = 0;    // the most one of them has (allocatable)
  std::int64_t largest_domain = 0;  // required level: the most one domain of them has

  friend bool operator==(const PendingExplanation&, const PendingExplanation&) = default;
};

// One human sentence with the numbers, e.g. "NoPlacement: needs 64 nvidia.com/gpu in one
// troupe.dev/rack; the largest free domain rack-7 holds 3 pods". Built on demand, so the
// cycle never formats strings for gangs nobody asks about.
std::string describe(const PendingExplanation& explanation);

// A queue's computed fair share and allocation, reported every cycle.
struct QueueStatus {
  std::string queue;
  ResourceVector fair_share;
  ResourceVector allocated;
  ResourceVector demand;
  double dominant_share = 0;  // max over resources of allocated / fair share
};

// One cycle's steps. A cycle never undoes its own: a gang it admits is admitted once and
// appears in none of its preemptions or resizes (its growth goes into its admission), so
// the steps can be carried out in any order that lets evictions finish first.
struct Decisions {
  std::int64_t cycle = 0;
  Seconds now = 0;
  std::vector<Preemption> preemptions;  // in the order they were decided
  std::vector<Resize> resizes;
  std::vector<Admission> admissions;
  // Gangs still pending whose explanation changed since the previous cycle of the same
  // engine (all of them on its first cycle), by name, sorted. A change is in why the gang
  // waits: its reason, blocking gang, dominant resource or detail. A move of its numbers
  // alone (its queue's, see `queues`, or its largest free domain, which moves with the free
  // capacity for thousands of waiting gangs at once) names no gang again; the explanation
  // read has the new numbers. Names only: Engine::explanation() builds an explanation on
  // demand, so a cycle that explains 100,000 gangs on its first cycle builds only those
  // asked for.
  std::vector<std::string> explained;
  std::vector<QueueStatus> queues;  // sorted by queue name
  // The earliest time after `now` at which a cycle could decide differently although the
  // caller reported nothing: a waiting gang starts starving (submit time + maxWaitSeconds,
  // with backfill on), a victim a search skipped for minRuntimeSeconds becomes
  // preemptible, a reservation's nodes are expected to be free (its running gangs'
  // runtime estimates end). Unset when no such moment is known. The caller schedules a
  // cycle then (or earlier, on any delta).
  std::optional<Seconds> next_wakeup;

  bool empty() const { return preemptions.empty() && resizes.empty() && admissions.empty(); }
};

}  // namespace troupe::queueing
