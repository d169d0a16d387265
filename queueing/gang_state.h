#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "queueing/decisions.h"
#include "queueing/ids.h"
#include "queueing/placement_memo.h"
#include "queueing/resource_vector.h"
#include "queueing/shared_text.h"
#include "queueing/snapshot.h"

namespace troupe::queueing {

// One running pod: pod set, node, GPU indices held (bit i = GPU i).
struct Pod {
  std::int32_t pod_set = 0;
  NodeId node = 0;
  std::uint64_t gpus = 0;
  // Deleted by the caller, still holding its capacity (PodPlacement::terminating).
  bool terminating = false;
  // A pod asking a fraction of one GPU (PodShape::gpu_milli): the thousandths it holds of
  // the one GPU in `gpus`, which it shares. 0 for every other pod.
  std::int32_t gpu_milli = 0;
};

// Why a pending gang waits, in compact form; turned into a PendingExplanation on output.
// Only what belongs to the gang: its queue's numbers (guaranteed, allocated, limit, fair
// share) are read from the queue when the explanation is built. They move with every
// admission into the queue and every change of demand anywhere, and a copy here would make
// each such move a new explanation for every gang waiting in the queue (31,000 of them in
// one cycle at 100 queues of 1,000 gangs) with nothing changed about why they wait.
struct Why {
  PendingReason reason = PendingReason::NoPlacement;
  std::string blocking;      // the gang it waits behind, if any
  std::int32_t level = -1;   // topology level of `domain`, -1: the cluster
  std::int32_t domain = -1;  // the largest free domain
  std::int64_t domain_pods = 0;
  std::int32_t dominant = 0;  // resource slot
  SharedText detail;          // shared with the remembered preemption failure it came from
  // QueueAtLimit, and Inadmissible for a limit: the level of its path whose limit binds
  // (a queue, or kClusterLevel) and the resource; kNoQuotaLevel when no limit binds.
  QueueId quota_level = kNoQuotaLevel;
  std::int32_t quota_resource = 0;
  friend bool operator==(const Why&, const Why&) = default;
  // The same apart from the largest free domain. That domain moves with the free capacity
  // for every gang waiting for room of the kinds that fit there, whose reason stays the
  // same: a sixth to a third of the gangs a settled cycle named in the engine benchmark.
  // Like the queue's numbers, it is news to be refreshed now and then, not a new
  // explanation to report at once.
  bool sameApartFromDomain(const Why& o) const {
    return reason == o.reason && dominant == o.dominant && blocking == o.blocking &&
           detail == o.detail && quota_level == o.quota_level && quota_resource == o.quota_resource;
  }
};

// Whether a gang waiting for this reason waits for capacity (rather than for its queue,
// a limit or a node that could never hold it): elastic growth waits while any does.
// Inline: the walk asks it for every gang it visits.
inline bool waitsForCapacity(PendingReason r) {
  switch (r) {
    case PendingReason::NoPlacement:
    case PendingReason::TopologyUnsatisfiable:
    case PendingReason::OverFairShare:
    case PendingReason::WaitingForReclaim:
    case PendingReason::BlockedByStarvingJob:
    case PendingReason::Reserved:
    case PendingReason::Preempted: return true;
    default: return false;
  }
}

// One way to run a gang with alternatives: GangSpec::pod_sets or one of its alternatives,
// with what the engine derives from its pod sets.
struct GangWay {
  std::string name;
  std::vector<PodSet> pod_sets;
  std::vector<std::int32_t> classes;
  KindId kind = kNoKind;
  ResourceVector min_request;
  ResourceVector full_request;
};

struct GangState {
  // spec.pod_sets, spec.variant, classes, kind, min_request and full_request are those of
  // the active way (ways[way]) of a gang with alternatives.
  GangSpec spec;
  std::vector<std::int32_t> classes;  // constraint class per pod set
  QueueId queue = -1;
  // One pod set: its placement kind (class, topology, pod request); kNoKind otherwise.
  KindId kind = kNoKind;
  bool present = false;
  bool running = false;
  Seconds start_time = 0;
  std::vector<Pod> pods;             // running pods
  std::vector<std::int32_t> counts;  // running pods per pod set
  ResourceVector min_request;        // all pod sets at min_count
  ResourceVector full_request;       // all pod sets at count
  ResourceVector held;               // running: requests of its pods
  // A gang with alternatives: its ways in order of preference (ways[0] holds the pod sets
  // it was given, with the name of GangSpec::variant); empty for a gang without. The active
  // way's pod sets and classes are in spec.pod_sets and classes, its own are empty
  // (EngineState::useWay, podSetsOfWay).
  std::vector<GangWay> ways;
  std::size_t way = 0;  // the active way
  // A gang with alternatives whose ways each have a kind and the same pod counts: the id
  // of its ways' kinds in order (EngineState::way_asks), by which it shares answers within
  // a walk with gangs of the same ways; kNoKind otherwise.
  KindId ways_ask = kNoKind;
  // Invariant: what the gang adds to its queue's demand: its first way's full_request (the
  // way it runs on, or its preferred one). Counting every way it accepts would raise its
  // queue's share of each type, and the victims' shares with it in every type at once, so
  // that no single eviction lowers a victim's dominant share and reclaim could not start.
  ResourceVector demand;
  // Invariant: how many of `pods` are terminating. A gang with one is no eviction
  // candidate (what it holds is partly on its way back already), and only its other pods
  // may be shrunk.
  std::int32_t terminating = 0;
  Why why;
  bool why_reported = false;
  std::int64_t evicted_cycle = -1;
  // The cycle that admitted it: a gang is never a victim in the cycle that admitted it.
  std::int64_t admitted_cycle = -1;
  // Running: it was admitted while holding a reservation (it had starved). Set at every
  // admission by the cycle; kept in memory only (preemption_rules.h, mayBeReclaimed).
  bool started_on_reservation = false;
  // Whether a reservation is held for it (EngineState::reservations, which reservations.cc
  // keeps this in step with).
  bool holds_reservation = false;
  bool elastic() const {
    for (const auto& ps : spec.pod_sets)
      if (ps.min_count < ps.count) return true;
    return false;
  }
};

// Admission order within a queue, as PendingList keeps it: priority (high first), submit
// time, name.
struct PendingOrder {
  const std::vector<GangState>* gangs;
  bool operator()(GangId a, GangId b) const {
    const GangSpec& x = (*gangs)[a].spec;
    const GangSpec& y = (*gangs)[b].spec;
    if (x.priority != y.priority) return x.priority > y.priority;
    if (x.submit_time != y.submit_time) return x.submit_time < y.submit_time;
    return x.name < y.name;
  }
};

// Gangs by name.
struct NameOrder {
  const std::vector<GangState>* gangs;
  bool operator()(GangId a, GangId b) const {
    return (*gangs)[a].spec.name < (*gangs)[b].spec.name;
  }
};

}  // namespace troupe::queueing
