#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "queueing/resource_vector.h"

// The engine's input types: nodes, queues, gangs (pending and running) and the moment
// the cycle runs at. They carry no Kubernetes objects and no JSON: callers convert API
// objects into them. Every name is unique in its kind; every order the engine derives
// from them ends in a name, so the order of elements in the vectors never matters.
namespace troupe::queueing {

// Times are whole seconds on the caller's clock (any fixed epoch).
using Seconds = std::int64_t;

// Labels as (key, value) pairs. Order does not matter; keys are unique.
using Labels = std::vector<std::pair<std::string, std::string>>;

enum class TaintEffect { NoSchedule, PreferNoSchedule, NoExecute };

struct Taint {
  std::string key;
  std::string value;
  TaintEffect effect = TaintEffect::NoSchedule;
  friend bool operator==(const Taint&, const Taint&) = default;
};

enum class TolerationOperator { Equal, Exists };

// Kubernetes toleration semantics: an empty key with Exists tolerates every taint; an
// absent effect matches every effect.
struct Toleration {
  std::string key;
  TolerationOperator op = TolerationOperator::Equal;
  std::string value;
  std::optional<TaintEffect> effect;
  friend bool operator==(const Toleration&, const Toleration&) = default;
};

enum class SelectorOperator { In, NotIn, Exists, DoesNotExist };

// One requirement of required node affinity, on node labels.
struct SelectorRequirement {
  std::string key;
  SelectorOperator op = SelectorOperator::In;
  std::vector<std::string> values;
  friend bool operator==(const SelectorRequirement&, const SelectorRequirement&) = default;
};

struct NodeSpec {
  std::string name;
  Labels labels;  // topology levels are labels too: troupe.dev/rack, troupe.dev/block
  std::vector<Taint> taints;
  ResourceVector allocatable;
  bool unschedulable = false;
  bool ready = true;
  // GPU indices held by pods the engine does not place (pods of other schedulers, pods
  // outside any gang) and so not in allocatable[kGpu]: the node's GPUs are indices 0 ..
  // allocatable[kGpu] + held_gpus.size() - 1, and no pod is ever given one of these.
  std::vector<int> held_gpus;
  // GPU indices grouped by NVLink island and by NUMA node. Empty when the node does not
  // describe them. At most 64 GPUs per node.
  std::vector<std::vector<int>> nvlink_islands;
  std::vector<std::vector<int>> numa_nodes;
  friend bool operator==(const NodeSpec&, const NodeSpec&) = default;
};

enum class WithinQueuePreemption { Never, LowerPriority };

// What a queue's gang with alternatives (GangSpec::alternatives) does when its preferred
// variant fits only by borrowing, or only by preempting: stay on it, or try the next
// variant first (docs/scheduling.md, "Choosing a GPU type").
enum class VariantFungibility { Stay, TryNext };

struct QueueSpec {
  std::string name;
  std::string parent;  // empty: a child of the (implicit) root
  // Resources the queue is always entitled to, whatever the others do.
  ResourceVector guaranteed;
  // The most the queue (with its children) may hold. Unlimited by default.
  ResourceVector limit = ResourceVector::filled(ResourceVector::kUnlimited);
  // The most of its unused guaranteed the queue lends to others. Unlimited by default.
  ResourceVector lending_limit = ResourceVector::filled(ResourceVector::kUnlimited);
  // Share of idle capacity, relative to siblings. 0: the queue gets only idle capacity
  // that no sibling with a weight wants (fair_share.cc, step 2c).
  std::int64_t over_quota_weight = 1;
  // Breaks ties between siblings with equal weighted claims; higher first.
  std::int32_t priority = 0;
  WithinQueuePreemption within_queue = WithinQueuePreemption::LowerPriority;
  // May gangs of this queue reclaim capacity from queues above their fair share?
  bool reclaim = true;
  // A gang waiting longer than this is starving and gets a reservation. Unset: the
  // policy's default.
  std::optional<Seconds> max_wait_seconds;
  // A running gang of this queue is not preempted before it has run this long.
  Seconds min_runtime_seconds = 0;
  // A gang's variant that fits only by taking more than the queue's guarantee: Stay takes
  // it, TryNext tries the gang's next variants first.
  VariantFungibility when_borrowing = VariantFungibility::Stay;
  // A gang's variant that fits only by preempting: Stay runs the preemption search on it,
  // TryNext tries the gang's next variants without preempting first.
  VariantFungibility when_preempting = VariantFungibility::TryNext;
  // Exponentially decayed past allocation (see usage.h), in the units of allocation.
  // Only leaf queues' usage is read.
  ResourceVector decayed_usage;
  friend bool operator==(const QueueSpec&, const QueueSpec&) = default;
};

// What one pod asks for and where it may run. Identical pods of a gang share one shape.
struct PodShape {
  ResourceVector requests;
  // A fraction of one GPU in thousandths, in (0, 1000), for a pod asking no whole GPU
  // (requests[kGpu] == 0): it shares one GPU index with other such pods, never more than the
  // whole of it, and never one a whole-GPU pod holds. 0: no fraction.
  std::int32_t gpu_milli = 0;
  Labels node_selector;                       // every pair must be a node label
  std::vector<SelectorRequirement> affinity;  // required node affinity, all must hold
  std::vector<Toleration> tolerations;
  friend bool operator==(const PodShape&, const PodShape&) = default;
};

// `count` identical pods. `min_count < count` makes the pod set elastic: the gang can run
// with any number in [min_count, count].
struct PodSet {
  std::shared_ptr<const PodShape> shape;
  std::int32_t count = 1;
  std::int32_t min_count = 1;
  // Shapes compare by what they hold: snapshots built apart make their own.
  friend bool operator==(const PodSet& a, const PodSet& b) {
    const bool same_shape = a.shape == b.shape || (a.shape && b.shape && *a.shape == *b.shape);
    return same_shape && a.count == b.count && a.min_count == b.min_count;
  }
};

enum class TopologyMode { None, Preferred, Required };

// Keep all pods of the gang inside one domain of the level named by a node label key,
// e.g. troupe.dev/rack.
struct TopologyConstraint {
  TopologyMode mode = TopologyMode::None;
  std::string level;
  friend bool operator==(const TopologyConstraint&, const TopologyConstraint&) = default;
};

// One more way to run a gang: its pod sets as they would run on another GPU type (the
// caller adds that type's node labels and quota resource to each shape).
struct GangVariant {
  std::string name;              // e.g. the GPU type, "a100"
  std::vector<PodSet> pod_sets;  // as many pod sets, in the same order, as GangSpec::pod_sets
  friend bool operator==(const GangVariant&, const GangVariant&) = default;
};

struct GangSpec {
  std::string name;   // unique among gangs, e.g. "namespace/job"
  std::string queue;  // a leaf queue's name
  std::int32_t priority = 0;
  Seconds submit_time = 0;
  std::vector<PodSet> pod_sets;
  // The name of pod_sets' way to run, "" for a gang without alternatives.
  std::string variant;
  // Other ways to run it, in order of preference after pod_sets; names unique and
  // different from `variant`. The engine runs a gang on one of them as a whole. A running
  // gang's pod_sets and variant are the variant it runs on, and its alternatives the
  // others in order of preference (as Engine::running() returns it).
  std::vector<GangVariant> alternatives;
  TopologyConstraint topology;
  bool preemptible = true;
  // Expected run time, when the user gave one; backfill may use it.
  std::optional<Seconds> runtime_estimate;
  friend bool operator==(const GangSpec&, const GangSpec&) = default;
};

// One running pod: its pod set, node and the GPU indices it holds on that node.
struct PodPlacement {
  std::int32_t pod_set = 0;
  std::string node;
  std::vector<int> gpus;
  // Deleted, its containers possibly still running (a grace period): it holds its node's
  // resources and GPUs, and counts in its queue's allocation, until the caller removes it,
  // but that capacity is already on its way back. It is never a preemption victim, and a
  // gang that fits once the terminating pods are gone waits for them (WaitingForReclaim)
  // instead of preempting anyone for that capacity. Only the caller sets it: the engine's
  // own evictions release their pods at once (assume, then write).
  bool terminating = false;
  friend bool operator==(const PodPlacement&, const PodPlacement&) = default;
};

struct RunningGang {
  GangSpec spec;
  Seconds start_time = 0;
  // The number per pod set, terminating pods included, is its current size.
  std::vector<PodPlacement> pods;
  friend bool operator==(const RunningGang&, const RunningGang&) = default;
};

// A whole cluster at one moment: the input of a single stateless cycle.
struct Snapshot {
  Seconds now = 0;
  std::vector<NodeSpec> nodes;
  std::vector<QueueSpec> queues;
  std::vector<GangSpec> pending;
  std::vector<RunningGang> running;
};

}  // namespace troupe::queueing
