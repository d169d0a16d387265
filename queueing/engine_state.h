#pragma once

// The engine's internal state. Not part of the public interface (engine.h): the cycle,
// the placer and the preemption search share it; nobody else includes it.

#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "queueing/decisions.h"
#include "queueing/gpu_picker.h"
#include "queueing/ids.h"
#include "queueing/name_key.h"
#include "queueing/pending_list.h"
#include "queueing/placement_memo.h"
#include "queueing/policy.h"
#include "queueing/resource_vector.h"
#include "queueing/shared_text.h"
#include "queueing/snapshot.h"
#include "queueing/terminating_capacity.h"

namespace troupe::queueing {

inline constexpr Seconds kNever = std::numeric_limits<Seconds>::max();
inline constexpr std::size_t kMaxLevels = 4;

// One running pod: pod set, node, GPU indices held (bit i = GPU i).
struct Pod {
  std::int32_t pod_set = 0;
  NodeId node = 0;
  std::uint64_t gpus = 0;
  // Deleted by the caller, still holding its capacity (PodPlacement::terminating).
  bool terminating = false;
};

struct NodeState {
  // What a placement scan reads of every eligible node comes first, on the first two cache
  // lines; the spec, the GPU groups and the gang list follow. A scan at 5,000 nodes is
  // bound by these loads.
  // Invariant: free = spec.allocatable - (requests of the running pods on this node).
  ResourceVector free;
  // Invariant: bit i set <=> GPU i exists and no running pod holds it.
  std::uint64_t free_gpus = 0;
  std::uint64_t all_gpus = 0;
  std::array<std::int32_t, kMaxLevels> domain{-1, -1, -1, -1};  // per topology level
  GangId reserved_for = kNoGang;
  std::uint32_t rank = 0;  // position by name among all nodes
  // Set with reserved_for: when the reservation's nodes are expected to be free.
  Seconds reserved_until = 0;
  bool present = true;
  std::uint32_t pods = 0;  // running pods on it
  NodeSpec spec;
  GpuGroups gpu_groups;  // NVLink islands and NUMA nodes as GPU masks
  // Invariant: the running gangs with a pod on it, once per pod (startRunning, stopRunning,
  // addPods and removePods keep it), in no particular order.
  std::vector<GangId> gangs;
  bool usable() const { return present && spec.ready && !spec.unschedulable; }
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
  friend bool operator==(const Why&, const Why&) = default;
  // The same apart from the largest free domain. That domain moves with the free capacity
  // for every gang waiting for room of the kinds that fit there, whose reason stays the
  // same: a sixth to a third of the gangs a settled cycle named in the engine benchmark.
  // Like the queue's numbers, it is news to be refreshed now and then, not a new
  // explanation to report at once.
  bool sameApartFromDomain(const Why& o) const {
    return reason == o.reason && dominant == o.dominant && blocking == o.blocking &&
           detail == o.detail;
  }
};

// How long a failed preemption search stays failed while allocations and fair shares move
// but no capacity is released anywhere (no pod released, node changed, reservation
// dropped, protection ended):
//  - Volatile: only until any allocation or fair share moves.
//  - Exhausted: every candidate was released and the gang still did not fit. The free
//    capacity plus the capacity of the candidates can only shrink while no capacity is
//    released and no gang that held capacity then becomes a candidate; the latter needs a
//    new source queue, so the failure holds while reclaimSources() for the same request
//    stays within the recorded sources.
//  - NoCandidates: no candidate at all, because the gang's queue would end above its fair
//    share (reason OverFairShare). Holds while that queue would still end above its fair
//    share, some other queue is still above its own, and the queue's own running gangs
//    did not change (the queue is not dirty).
enum class PreemptFailureKind : std::uint8_t { Volatile, Exhausted, NoCandidates };

// A remembered failed preemption search, for gangs of one kind, queue and priority at
// min_failing pods or more (keyed by preemptKey()).
struct PreemptFailure {
  std::int64_t min_failing = 0;
  std::int32_t priority = 0;  // the priority the answer holds for
  PendingReason reason = PendingReason::NoPlacement;
  SharedText detail;
  PreemptFailureKind kind = PreemptFailureKind::Volatile;
  std::vector<std::int32_t> sources;  // Exhausted: the source queues, sorted by id
};
using PreemptMemo = std::unordered_map<std::uint64_t, PreemptFailure>;
inline std::uint64_t preemptKey(KindId kind, QueueId queue) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(kind)) << 32) |
         static_cast<std::uint32_t>(queue);
}
inline KindId kindOfPreemptKey(std::uint64_t key) { return static_cast<KindId>(key >> 32); }
inline QueueId queueOfPreemptKey(std::uint64_t key) {
  return static_cast<QueueId>(static_cast<std::uint32_t>(key));
}

struct GangState {
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
  // Invariant: how many of `pods` are terminating. A gang with one is no eviction
  // candidate (what it holds is partly on its way back already), and only its other pods
  // may be shrunk.
  std::int32_t terminating = 0;
  Why why;
  bool why_reported = false;
  std::int64_t evicted_cycle = -1;
  // The cycle that admitted it: a gang is never a victim in the cycle that admitted it.
  std::int64_t admitted_cycle = -1;
  bool elastic() const {
    for (const auto& ps : spec.pod_sets)
      if (ps.min_count < ps.count) return true;
    return false;
  }
};

class EngineState;
class CandidatePool;

// Admission order, as PendingList keeps it: priority (high first), submit time, name.
struct PendingOrder {
  const std::vector<GangState>* gangs;
  bool operator()(GangId a, GangId b) const;
};
struct NameOrder {
  const std::vector<GangState>* gangs;
  bool operator()(GangId a, GangId b) const;
};
struct FifoOrder {
  const std::vector<GangState>* gangs;
  bool operator()(GangId a, GangId b) const;
};

struct QueueState {
  QueueSpec spec;
  bool present = true;
  QueueId parent = -1;
  std::vector<QueueId> children;
  std::uint32_t rank = 0;
  // Invariant: allocated = sum of `held` over running gangs in this queue's subtree.
  ResourceVector allocated;
  // Leaf: sum of full_request over its pending and running gangs.
  ResourceVector demand;
  ResourceVector fair_share;
  PendingList pending;
  std::set<GangId, NameOrder> running;
  // Set to a new EngineState::running_stamp whenever `running`, the pods of one of its
  // gangs or its spec change (admission, eviction, resize, removal, upsertQueue): caches
  // of what its running gangs offer compare it.
  std::uint64_t running_version = 0;
  // The last full examination of this queue's pending gangs, and what it depended on: a
  // queue whose inputs did not move is not examined again (its gangs would fail again
  // the same way), which keeps a cycle after a small change cheap.
  bool dirty = true;  // its gangs or its own allocation changed
  std::uint64_t seen_release = 0;
  std::uint64_t seen_preempt_generation = 0;
  // Preemption answers its last examination relied on: preempt_voided when one of its
  // remembered failures was dropped since; preempt_volatile when some waiting gang's
  // answer was not remembered at all (no search budget left, no memo key), so any move
  // of allocations or shares (preempt_epoch) may change it.
  bool preempt_voided = false;
  bool preempt_volatile = false;
  std::uint64_t seen_preempt_epoch = 0;
  Seconds next_starving = kNever;  // when one of its waiting gangs starts starving
  bool waits = false;              // some gang of it waits for capacity
  // What a release of capacity could change for it: the pod kinds its waiting gangs
  // failed to place, each with the smallest count that failed. release_proof is false
  // when some waiting gang's outcome could change in a way these kinds do not capture
  // (QueueAtLimit under an ancestor, a reservation, several pod sets, an estimate).
  std::vector<std::pair<KindId, std::int64_t>> kinds;
  bool release_proof = false;
  // The smallest request (slot by slot) among its gangs that waited for capacity, for the
  // "could it reclaim at all" test; has_waiting false when none did.
  ResourceVector min_waiting_request;
  bool has_waiting = false;
  // Some waiting gang of it starves without a reservation: a reservation that ends may
  // give it one, so it is examined again when reservation_version moves.
  bool starving_waiters = false;
  std::uint64_t seen_reservation_version = 0;
  // Some gang of it waited for terminating capacity: what it counted on is counted again
  // every cycle, so the queue is examined every cycle until none does. And any waiting gang
  // of it may count on terminating capacity that appeared since its last examination
  // (TerminatingCapacity::version).
  bool counts_on_terminating = false;
  std::uint64_t seen_terminating_version = 0;
  bool leaf() const { return children.empty(); }
};

// Nodes a pod shape's constraints (selector, affinity, tolerations) allow. Shapes with
// equal constraints share one class, so eligibility is computed once per class.
struct ConstraintClass {
  PodShape exemplar;  // requests ignored
  std::uint64_t epoch = 0;
  std::vector<NodeId> eligible;      // sorted by node id
  std::vector<std::uint8_t> allows;  // by node id
  // Every usable node is eligible (allows[n] == usable(n) for every node).
  bool allows_every_usable = false;
};

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
  // FIFO policy only: every pending gang with a queue, by submit time then name.
  std::set<GangId, FifoOrder> fifo;

  std::vector<ConstraintClass> classes;
  std::unordered_map<std::string, std::int32_t> class_ids;
  // Placement kinds, interned as gangs are added and never forgotten (like constraint
  // classes: a kind costs about 300 bytes here and in the memos), so memos index by id.
  std::vector<MemoKey> kinds;
  std::unordered_map<MemoKey, KindId, MemoKeyHash> kind_ids;
  KindId kindOf(const MemoKey& key);
  std::array<Domains, kMaxLevels> domains;
  std::vector<NodeId> nodes_by_rank;
  std::vector<QueueId> queues_by_rank;

  std::vector<Reservation> reservations;
  // What terminating pods hold, by node, and what waiting gangs count on this cycle.
  TerminatingCapacity terminating;

  // Scratch space for the placer, reused across calls (sized by node and domain count).
  std::vector<std::uint32_t> scratch_stamp;
  std::vector<ResourceVector> scratch_free;
  std::vector<std::uint64_t> scratch_gpus;
  std::uint32_t scratch_epoch = 0;
  std::array<std::vector<std::int64_t>, kMaxLevels> scratch_domain_pods;

  // Nodes whose free capacity changed, in order: every takeOnNode and releaseOnNode
  // appends one (a Statement's tentative changes and their rollbacks too). Cleared, with
  // the scan tallies that read it, at the start of each cycle.
  std::vector<NodeId> capacity_log;
  // What a placement scan found for one kind and pod count on free capacity, brought up to
  // date from capacity_log instead of scanning again: a cycle admitting thousands of
  // gangs of one kind otherwise scans every eligible node for each (gang_placer.cc).
  struct ScanTally {
    KindId kind = kNoKind;
    std::int64_t want = 0;
    std::uint64_t node_epoch = 0;
    std::size_t log_pos = 0;         // capacity_log entries already applied
    std::vector<std::int64_t> pods;  // by node id: pods of the kind it holds, up to want
    std::array<std::vector<std::int64_t>, kMaxLevels> domain_pods;  // by level, by domain
    std::int64_t total = 0;
    std::uint64_t last_use = 0;
  };
  static constexpr std::size_t kScanTallies = 4;
  std::vector<ScanTally> scan_tallies;
  std::uint64_t scan_tally_clock = 0;
  void forgetScanTallies() {
    capacity_log.clear();
    scan_tallies.clear();
  }

  // Set by deltas, cleared by the cycle (dirty flags, as the Mesos sorter keeps them).
  bool nodes_dirty = true;   // ranks, domains, eligibility
  bool queues_dirty = true;  // tree shape, ranks
  bool shares_dirty = true;  // fair shares (demand, capacity or specs changed)
  std::uint64_t node_epoch = 1;

  // Bumped by every allocation change and fair-share computation; caches compare it.
  std::uint64_t alloc_version = 1;
  // Leaf queues above their fair share (dominant share > 1), by queue name, with their
  // share; recomputed when alloc_version moved.
  const std::vector<std::pair<QueueId, double>>& overShareQueues();
  std::vector<std::pair<QueueId, double>> over_share;
  std::uint64_t over_share_version = 0;
  // Leaf queues holding more than their guarantee (guaranteeShare > 1, fair_share.h), by
  // queue name, with that share; recomputed when alloc_version moved.
  const std::vector<std::pair<QueueId, double>>& overGuaranteeQueues();
  std::vector<std::pair<QueueId, double>> over_guarantee;
  std::uint64_t over_guarantee_version = 0;

  // Bumped whenever capacity may grow for someone: a pod released, a node changed, a
  // reservation dropped. The placement memos hold while it stays put.
  std::uint64_t release_version = 1;
  std::uint64_t memo_release_version = 0;
  std::uint64_t memo_node_epoch = 0;
  std::uint64_t preempt_alloc_version = 0;
  // When a victim protected by minRuntimeSeconds becomes preemptible.
  Seconds protection_expiry = kNever;
  // Bumped whenever preempt_memo is cleared.
  std::uint64_t preempt_generation = 0;
  // Bumped at the start of a cycle when allocations or fair shares moved since the last.
  std::uint64_t preempt_epoch = 0;
  // Bumped whenever a reservation ends.
  std::uint64_t reservation_version = 0;
  KindMemo fit_memo;      // placement on free capacity
  KindMemo blocked_memo;  // placement ignoring reservations
  // Placement ignoring reservations that succeeded: count in min_failing (as "fits up
  // to"), valid while capacity_version stays put (any take or release moves it).
  KindMemo blocked_fits;
  std::uint64_t blocked_fits_version = 0;
  std::uint64_t capacity_version = 1;
  PreemptMemo preempt_memo;  // failed preemption searches, per queue
  KindMemo static_ok;        // placement on an empty cluster
  KindMemo static_bad;

  // Per run of kNodeChunk consecutive node ids: the most free GPUs one node of it has
  // (any node, usable or not). A scan for pods of g GPUs skips a run whose most is below
  // g: none of its nodes could take one. Runs are grouped again in blocks of
  // kChunksPerBlock, each with the most of its runs, so that a scan over a nearly full
  // cluster of 10,000 nodes checks about 40 blocks rather than 625 runs. Rebuilt with the
  // indexes, kept up to date by takeOnNode and releaseOnNode.
  static constexpr NodeId kNodeChunk = 16;
  static constexpr NodeId kChunksPerBlock = 16;
  static constexpr NodeId kBlockNodes = kNodeChunk * kChunksPerBlock;
  std::vector<std::int32_t> chunk_free_gpus;
  std::vector<std::int32_t> block_free_gpus;
  void refreshChunk(std::size_t chunk);
  void refreshBlock(std::size_t block);
  // Every block's most again from chunk_free_gpus (sized to match).
  void refreshBlocks();
  bool chunkCannotHold(NodeId n, std::int64_t gpus) const {
    const std::size_t c = n / kNodeChunk;
    return gpus > 0 && c < chunk_free_gpus.size() && chunk_free_gpus[c] < gpus;
  }
  bool blockCannotHold(NodeId n, std::int64_t gpus) const {
    const std::size_t b = n / kBlockNodes;
    return gpus > 0 && b < block_free_gpus.size() && block_free_gpus[b] < gpus;
  }
  // The first index at or after i in `eligible` whose node may hold a pod of `gpus` GPUs
  // by its run's maximum (eligible.size() when none).
  std::size_t skipFullChunks(const std::vector<NodeId>& eligible, std::size_t i,
                             std::int64_t gpus) const;

  // Sum of free over usable nodes, and of allocatable.
  ResourceVector usable_free;
  ResourceVector usable_capacity;

  // Queries.
  const std::string& gangName(GangId g) const { return gangs[g].spec.name; }
  std::int32_t levelIndex(const std::string& level_key) const;
  std::int32_t classFor(const PodShape& shape);
  const ConstraintClass& eligibility(std::int32_t cls);
  void refreshIndexes();  // ranks, domains, when dirty

  // Accounting. Every change of a node's free capacity goes through these two.
  void takeOnNode(NodeId n, const ResourceVector& req, std::uint64_t gpus);
  void releaseOnNode(NodeId n, const ResourceVector& req, std::uint64_t gpus);
  void addAllocated(QueueId q, const ResourceVector& amount);  // q and its ancestors
  void forgetOnNode(NodeId n, GangId g);  // one pod of g left n (NodeState::gangs)
  void markDirty(QueueId q) {
    if (q >= 0) queues[static_cast<std::size_t>(q)].dirty = true;
  }
  void runningChanged(QueueId q) {
    if (q >= 0) queues[static_cast<std::size_t>(q)].running_version = ++running_stamp;
  }
  std::uint64_t running_stamp = 0;
  // Reclaim candidates per source queue, shared by preemption searches across cycles
  // (candidate_pool.h).
  std::unique_ptr<CandidatePool> candidate_pool;

  // Gang lifecycle. startRunning/stopRunning move the accounting with the pods.
  GangId newGang(GangSpec spec);
  void attachToQueue(GangId g);
  void detachFromQueue(GangId g);
  void startRunning(GangId g, std::vector<Pod> pods, Seconds now);
  void stopRunning(GangId g);  // back to pending, keeps its submit time
  void removePods(GangId g, const std::vector<std::size_t>& pod_indexes);
  void addPods(GangId g, const std::vector<Pod>& pods);
  const ResourceVector& requestOf(GangId g, std::int32_t pod_set) const {
    return gangs[g].spec.pod_sets[static_cast<std::size_t>(pod_set)].shape->requests;
  }
};

bool nodeAllows(const NodeSpec& node, const PodShape& shape);

}  // namespace troupe::queueing
