#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "controllers/gang_admissibility.h"
#include "controllers/gpu_types.h"
#include "controllers/lone_pod_groups.h"
#include "controllers/object_facts.h"
#include "controllers/object_list.h"
#include "queueing/snapshot.h"

// The scheduler loop's input, built from the informer caches: API objects in, the
// engine's snapshot out, with the index from each gang back to its pods.
namespace troupe::controllers {

// The objects of one moment, as the caches hold them (shared, not copied).
struct ApiObjects {
  ObjectList nodes;
  ObjectList pods;
  ObjectList queues;
  ObjectList pod_groups;
  ObjectList priority_classes;
  ObjectList namespaces;  // their labels: which queues admit them
  ObjectList gpu_types;   // which nodes have which GPUs (controllers/gpu_types.h)
};

// One pod of a gang as the scheduler loop needs it: the facts read from the pod (shared
// with the facts cache, not copied: copying four strings a pod was a sixth of a snapshot
// at 100,000 pods) and the pod set the snapshot put it in.
struct GangPod {
  std::shared_ptr<const PodFacts> facts;
  std::int32_t pod_set = 0;

  const std::string& ns() const { return facts->ns; }
  const std::string& name() const { return facts->name; }
  const std::string& uid() const { return facts->uid; }
  // The troupe.dev/replica-index label, or -1: orders pods for binding and shrinking.
  std::int32_t replicaIndex() const { return facts->replica_index; }
  const std::string& node() const { return facts->node; }  // empty while unbound
  const std::vector<int>& gpus() const { return facts->gpus; }
  bool deleting() const { return facts->deleting; }
  bool bound() const { return !facts->node.empty(); }
};

enum class GangState {
  WaitingForPods,  // fewer unbound pods than the gang's minimum: not submitted yet
  Pending,         // submitted to the engine
  Running,         // at least one pod bound and not finished
  Finished,        // the PodGroup is Succeeded or Failed
};

struct Gang {
  std::string key;  // "namespace/podgroup"
  std::string queue;
  GangState state = GangState::WaitingForPods;
  std::vector<GangPod> pods;  // live pods (not Succeeded or Failed), by pod set then index
  std::int32_t min_member = 1;
  queueing::ResourceVector bound_requests;     // what its bound pods hold
  std::int32_t terminating = 0;                // bound pods being deleted
  std::shared_ptr<const PodGroupFacts> group;  // the facts of the PodGroup it was built from
  // The GPUType it runs on (its bound pods' nodes' type) or, pending, the one it was
  // submitted to the engine for; empty: placed without GPU types.
  std::string gpu_type;
};

// An object the snapshot leaves out, and why.
struct Problem {
  std::string kind;  // "Node", "Queue", "PodGroup"
  std::string key;
  Error error;
};

struct ClusterSnapshot {
  queueing::Snapshot snapshot;
  // By snapshot.running: whether a pod of the gang reported its start (status.startTime).
  // Until one does, the gang's start_time is the snapshot's `now`, a stand-in that moves
  // every cycle; an engine kept across cycles keeps the start it already holds.
  std::vector<bool> running_started;
  queueing::ResourceNames names;
  // The GPU types the snapshot was built with (controllers/gpu_types.h).
  GpuTypes gpu_types;
  std::map<std::string, Gang> gangs;  // by key
  // The gangs with a bound pod being deleted, by key: the pods that still hold capacity
  // although they are leaving.
  std::vector<std::string> terminating_gangs;
  std::vector<Problem> problems;
  // Which gangs may use their queues (the queue tree, leaves, namespaces), as read from the
  // objects of this snapshot.
  std::shared_ptr<const GangAdmissibility> admissibility;
  // Pending gangs that may not use their queue (GangAdmissibility::whyNot), with why, left
  // out of snapshot.pending so that the engine never admits them. Looked for only while
  // some queue restricts namespaces: otherwise a gang naming a queue that cannot take jobs,
  // or no leaf, stays, and the engine finds no leaf queue for it (QueueNotFound, which the
  // operator then explains with whyNot).
  std::map<std::string, std::string> inadmissible;
  // By snapshot.nodes: the facts each node was made from.
  std::vector<std::shared_ptr<const NodeFacts>> node_facts;
  // Priority by PriorityClass name, and the global default's: what gang priorities read.
  std::map<std::string, std::int32_t> priority_classes;
  std::optional<std::int32_t> default_priority;
  // SnapshotFacts::pods.reads() when this snapshot was built (0: without SnapshotFacts).
  std::uint64_t pod_reads = 0;
  // The pod_reads of the recycled snapshot this one took gangs from (0: none), and by
  // snapshot.running and snapshot.pending, whether each gang was taken from it unchanged
  // (a running gang's start may have moved, when it was the stand-in `now`).
  std::uint64_t recycled_from = 0;
  std::vector<bool> running_recycled;
  std::vector<bool> pending_recycled;
};

// What the scheduling loop keeps from one snapshot build to the next: what it read of each
// object version, and the last snapshot once its user is done with it (recycle).
//
// A build moves what did not change out of the recycled snapshot instead of making it
// again: a node whose object is the same version, and a gang whose PodGroup and pods are
// the same versions (none new, changed or gone). At 35,000 pods, making every gang again
// (sorting its pods, mapping their requests, allocating its spec, pod list and map entry)
// was most of a snapshot, and copying every node's labels and GPU topology a quarter of
// the operator's. Not thread-safe: one scheduling loop owns it.
struct SnapshotFacts {
  FactsCache<PodFacts> pods{readPodFacts};
  FactsCache<NodeFacts> nodes{readNodeFacts};
  FactsCache<PodGroupFacts> groups{readPodGroupFacts};
  // The groups of lone pods not in the API, as the cycle reads them.
  LonePodGroups lone_groups;
  // The snapshot of the build before, handed back by recycle(); a build takes it.
  std::optional<ClusterSnapshot> spare;
};

struct SnapshotOptions {
  queueing::Seconds now = 0;
  // Decayed usage per leaf queue by resource name (state/usage_history.h).
  std::map<std::string, std::map<std::string, std::int64_t>> usage;
  // Facts of pods, nodes and PodGroups kept from the previous build (replaced by this
  // one's); null: every object is read afresh.
  SnapshotFacts* facts = nullptr;
};

// Builds the engine's view:
// - nodes: allocatable minus what bound pods outside Troupe's gangs (other schedulers,
//   pods without a PodGroup or of a finished one, gangs left out for a problem) hold
//   there, with the GPU indices they hold (NodeSpec::held_gpus); NotReady nodes are
//   marked not ready;
// - queues: those that can take jobs (controllers/queue_tree.h), with their decayed usage;
// - gangs: every PodGroup with its live pods (label troupe.dev/pod-group, schedulerName
//   troupe, same namespace): running when a pod is bound, pending when at least
//   minMember pods wait unbound; pods of one shape form one pod set. A bound pod holds
//   its node until it is gone or has finished: one being deleted is a running pod marked
//   terminating (PodPlacement::terminating). A pending gang its queue does not admit (its
//   namespace) goes to `inadmissible` instead;
// Objects that break a rule go to `problems` and are left out, never crash the build.
ClusterSnapshot buildClusterSnapshot(const ApiObjects& objects, const SnapshotOptions& options);

// Hands a snapshot its user is done with to `facts`, for the next build to move rather
// than make again what did not change since. Only the snapshot of the latest build with
// these facts is used; an older one is let go.
void recycle(ClusterSnapshot&& used, SnapshotFacts& facts);

}  // namespace troupe::controllers
