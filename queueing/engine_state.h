#pragma once

// The engine's internal state. Not part of the public interface (engine.h): the cycle,
// the placer and the preemption search share it; nobody else includes it.

#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "queueing/constraint_classes.h"
#include "queueing/decisions.h"
#include "queueing/gang_state.h"
#include "queueing/ids.h"
#include "queueing/name_key.h"
#include "queueing/node_runs.h"
#include "queueing/node_state.h"
#include "queueing/pending_observer.h"
#include "queueing/placement_memo.h"
#include "queueing/policy.h"
#include "queueing/queue_state.h"
#include "queueing/resource_vector.h"
#include "queueing/scan_tallies.h"
#include "queueing/shared_text.h"
#include "queueing/snapshot.h"
#include "queueing/terminating_capacity.h"

namespace troupe::queueing {

class KeptGuarantees;

// Topology domains of one level: ids by label value, names, ranks and nodes.
struct Domains {
  std::unordered_map<std::string, std::int32_t> ids;
  std::vector<std::string> names;
  std::vector<std::uint32_t> rank;         // by name
  std::vector<std::vector<NodeId>> nodes;  // present nodes, by node rank
};

struct Reservation {
  GangId gang = kNoGang;
  std::vector<NodeId> nodes;
  Seconds shadow_time = kNever;  // when the nodes are expected to be free
};

// What moved in the state, as counters bumped where it moves. The memos compare them with
// the values they saw (answer_memo.h, candidate_pool.h, the scan tallies): an answer found
// while none of its counters moved still holds. They only grow, but for release and
// capacity, which a Statement rolled back whole restores (nothing moved).
struct StateVersions {
  // Any queue's allocation (addAllocated) or any fair share (the cycle's computation).
  std::uint64_t alloc = 1;
  // Capacity may have grown for someone: a pod released, nodes indexed again, a
  // reservation dropped, terminating capacity counted on in a cycle given back.
  std::uint64_t release = 1;
  // Any node's free capacity moved (every take and release).
  std::uint64_t capacity = 1;
  // Nodes were indexed again (one added, changed or removed): eligibility, domains, ranks.
  std::uint64_t nodes = 1;
  // A reservation ended.
  std::uint64_t reservations = 0;
  // The last QueueState::running_version handed out.
  std::uint64_t running = 0;
};

class EngineState {
 public:
  explicit EngineState(Policy p);
  ~EngineState();
  EngineState(const EngineState&) = delete;
  EngineState& operator=(const EngineState&) = delete;

  Policy policy;
  std::int64_t cycle = 0;
  Seconds last_now = std::numeric_limits<Seconds>::min();

  std::vector<NodeState> nodes;
  std::unordered_map<std::string, NodeId> node_ids;
  std::vector<QueueState> queues;
  std::unordered_map<std::string, QueueId> queue_ids;
  std::vector<GangState> gangs;
  // By GangId: the first 16 bytes of the gang's name as two big-endian words, kept apart
  // from `gangs` so that sorting many gangs by name reads 16 dense bytes per gang instead
  // of each gang's state (see nameKey()).
  std::vector<NameKey> name_keys;
  std::unordered_map<std::string, GangId> gang_ids;
  std::vector<GangId> free_gang_ids;
  // Gangs whose state changed since Engine::forgetChanges(), kept only once a caller asks
  // for them (Engine::trackChanges): ids of those still held (an id freed and taken again
  // names its new gang, one more than needed), names of those removed.
  bool track_changes = false;
  std::vector<GangId> changed_gangs;
  std::vector<std::string> removed_gangs;
  void noteChanged(GangId g) {
    if (track_changes) changed_gangs.push_back(g);
  }
  // Gangs naming a queue that does not exist (yet), by queue name.
  std::unordered_map<std::string, std::set<GangId, NameOrder>> orphans;
  // Told of every gang that starts or stops waiting in a leaf queue, when a scheduling
  // policy keeps its own order of them (FifoPolicy); null otherwise.
  PendingObserver* pending_observer = nullptr;

  ConstraintClasses constraint_classes;
  // Placement kinds, interned as gangs are added and never forgotten (like constraint
  // classes: a kind costs about 300 bytes here and in the memos), so memos index by id.
  std::vector<MemoKey> kinds;
  std::unordered_map<MemoKey, KindId, MemoKeyHash> kind_ids;
  KindId kindOf(const MemoKey& key);
  // The asks of gangs with alternatives: the kinds of their ways in order, interned as
  // gangs are added and never forgotten, numbered -2, -3, ... so that no ask id is a
  // placement kind (or kNoKind). Gangs of one such ask share answers within a walk.
  std::map<std::vector<KindId>, KindId> way_asks;
  std::array<Domains, kMaxLevels> domains;
  std::vector<NodeId> nodes_by_rank;
  std::vector<QueueId> queues_by_rank;

  std::vector<Reservation> reservations;
  // versions.release when the reservations were last planned (reservations.h,
  // restoreReservations): while it stays put they are not planned again.
  std::uint64_t reservations_planned_at = 0;
  // What terminating pods hold, by node, and what waiting gangs count on this cycle.
  TerminatingCapacity terminating;

  PlacerScratch placer_scratch;
  ScanTallies scan_tallies;
  // The most free GPUs of one node per run of node ids, for scans to skip full runs.
  // Rebuilt with the indexes, kept up to date by takeOnNode and releaseOnNode.
  NodeRuns node_runs;

  // Set by deltas, cleared by the cycle (dirty flags, as the Mesos sorter keeps them).
  bool nodes_dirty = true;   // ranks, domains, eligibility
  bool queues_dirty = true;  // tree shape, ranks
  bool shares_dirty = true;  // fair shares (demand, capacity or specs changed)
  StateVersions versions;

  // Leaf queues above their fair share (dominant share > 1), by queue name, with their
  // share; recomputed when versions.alloc moved.
  const std::vector<std::pair<QueueId, double>>& overShareQueues();
  std::vector<std::pair<QueueId, double>> over_share;
  std::uint64_t over_share_version = 0;
  // Leaf queues holding more than their guarantee (guaranteeShare > 1, fair_share.h), by
  // queue name, with that share; recomputed when versions.alloc moved.
  const std::vector<std::pair<QueueId, double>>& overGuaranteeQueues();
  std::vector<std::pair<QueueId, double>> over_guarantee;
  std::uint64_t over_guarantee_version = 0;

  // What queues keep unlent of their guarantees, for the quota rule (queue_limits.h);
  // derived from the queues' specs and allocations, refreshed by whoever reads it, also
  // through a const state (explanations).
  std::unique_ptr<KeptGuarantees> kept;

  // Sum of free over usable nodes, and of allocatable.
  ResourceVector usable_free;
  ResourceVector usable_capacity;

  // Queries.
  const std::string& gangName(GangId g) const { return gangs[g].spec.name; }
  std::int32_t levelIndex(const std::string& level_key) const;
  std::int32_t classFor(const PodShape& shape) { return constraint_classes.classFor(shape); }
  const ConstraintClass& eligibility(std::int32_t cls) {
    return constraint_classes.eligibility(cls, nodes, versions.nodes);
  }
  void refreshIndexes();  // ranks, domains, when dirty
  // Whether g holds a reservation (backfill).
  bool holdsReservation(GangId g) const;

  // Accounting. Every change of a node's free capacity goes through these two. A pod asking
  // a fraction of one GPU passes its thousandths as `gpu_milli` (> 0) and its one GPU as
  // `gpus`; every other caller passes 0.
  void takeOnNode(NodeId n, const ResourceVector& req, std::uint64_t gpus, std::int32_t gpu_milli);
  void releaseOnNode(NodeId n, const ResourceVector& req, std::uint64_t gpus,
                     std::int32_t gpu_milli);
  void addAllocated(QueueId q, const ResourceVector& amount);  // q and its ancestors
  // The allocation changes of q's ancestors that have a limit, summed: it moves whenever
  // the allocation one of those limits is checked against moves.
  std::uint64_t ancestorLimitChanges(QueueId q) const;
  void forgetOnNode(NodeId n, GangId g);  // one pod of g left n (NodeState::gangs)
  void markDirty(QueueId q) {
    if (q >= 0) queues[static_cast<std::size_t>(q)].dirty = true;
  }
  void runningChanged(QueueId q) {
    if (q >= 0) queues[static_cast<std::size_t>(q)].running_version = ++versions.running;
  }

  // Gang lifecycle. startRunning/stopRunning move the accounting with the pods.
  GangId newGang(GangSpec spec);
  void attachToQueue(GangId g);
  void detachFromQueue(GangId g);
  void startRunning(GangId g, std::vector<Pod> pods, Seconds now);
  void stopRunning(GangId g);  // back to pending, keeps its submit time
  void removePods(GangId g, const std::vector<std::size_t>& pod_indexes);
  void addPods(GangId g, const std::vector<Pod>& pods);
  // Makes way w of g (a gang with alternatives) its active one.
  void useWay(GangId g, std::size_t w);
  // The pod sets of way w of g, active or not.
  const std::vector<PodSet>& podSetsOfWay(GangId g, std::size_t w) const;
  // The spec g was given (or, running, its spec as Engine::running() returns it),
  // whichever way is active.
  GangSpec givenSpec(GangId g) const;
  const ResourceVector& requestOf(GangId g, std::int32_t pod_set) const {
    return gangs[g].spec.pod_sets[static_cast<std::size_t>(pod_set)].shape->requests;
  }

 private:
  void refreshNodeRuns();
  GangWay wayOf(std::string name, std::vector<PodSet> pod_sets, const TopologyConstraint& topology);
  void settleOnWay(GangId g);
  KindId waysAskOf(const std::vector<GangWay>& ways);
  void setDemand(GangId g, const ResourceVector& demand);
};

}  // namespace troupe::queueing
