#pragma once

#include <string>
#include <utility>
#include <vector>

#include "common/error.h"
#include "common/result.h"
#include "controllers/object_list.h"
#include "queueing/resource_vector.h"
#include "queueing/snapshot.h"

// GPU types (troupe.dev GPUType objects) as the scheduling cycle uses them. To the engine a
// type T is one more resource, gpu.troupe.dev/T (api::gpuTypeResource): a node of type T
// has as much of it as it has nvidia.com/gpu, a pod placed on T asks for as much of it as
// it asks nvidia.com/gpu, and queues' per-type quotas are its quotas. Per-type fair share,
// lending and reclaim then come from the engine's per-resource quotas. docs/gpu-types.md.
namespace troupe::controllers {

struct GpuTypeFacts {
  std::string name;
  queueing::Labels node_labels;  // every pair must be a node label
  std::vector<queueing::Toleration> tolerations;
  friend bool operator==(const GpuTypeFacts&, const GpuTypeFacts&) = default;
};

// The cluster's GPU types, by name.
class GpuTypes {
 public:
  GpuTypes() = default;
  // Reads GPUType objects; one that breaks a rule of api/gpu_type.h is left out and
  // named in `problems` with why.
  static GpuTypes read(const ObjectList& objects,
                       std::vector<std::pair<std::string, Error>>& problems);

  bool empty() const { return types_.empty(); }
  const std::vector<GpuTypeFacts>& all() const { return types_; }
  const GpuTypeFacts* find(const std::string& name) const;
  // The type of a node with `labels`: the first, by name, whose labels it all carries;
  // null when none (a node is of one type).
  const GpuTypeFacts* ofNode(const queueing::Labels& labels) const;
  friend bool operator==(const GpuTypes&, const GpuTypes&) = default;

 private:
  std::vector<GpuTypeFacts> types_;  // by name
};

// One way to place a gang: all of it on GPU type `type`, with these pod sets.
struct GpuTypeVariant {
  std::string type;
  std::vector<queueing::PodSet> pod_sets;
};

// The ways a gang can be placed by GPU type, most preferred first. `accepted` is the
// gang's spec.gpuTypes, in its order; empty means every type of the cluster, by name. Each
// variant's pod sets are `pod_sets` with every pod asking gpu.troupe.dev/<type> as many as
// its nvidia.com/gpu, the type's node labels added to its node selector and the type's
// tolerations to its own. A type named but not in the cluster is a variant too: it asks
// for a resource no node has, so the gang waits for the type to appear, saying which.
// Empty when the gang asks for no GPU, or names no type in a cluster without types: it is
// placed as it is. An error when the resource slots are full.
Result<std::vector<GpuTypeVariant>> gpuTypeVariants(const std::vector<queueing::PodSet>& pod_sets,
                                                    const std::vector<std::string>& accepted,
                                                    const GpuTypes& types,
                                                    queueing::ResourceNames& names);

// The pod sets of a gang on `type`: as gpuTypeVariants makes them for that type, so that
// what it holds counts in the type's quotas and an elastic gang grows on the same type.
Result<std::vector<queueing::PodSet>> onGpuType(const std::vector<queueing::PodSet>& pod_sets,
                                                const GpuTypeFacts& type,
                                                queueing::ResourceNames& names);

// Where a gang's bound pods are, as far as GPU types go.
struct GangPlacement {
  bool running = false;
  // Running: the type of the node of its first bound pod (a gang is placed on one type);
  // null when that node is of no type.
  const GpuTypeFacts* type = nullptr;
};

// Gives gang `spec` (its pod sets as its pods ask them) its GPU types as the engine takes
// them, the engine's alternatives (queueing::GangSpec::alternatives): a pending gang's
// pod_sets and variant become the first of gpuTypeVariants (the type it prefers), its
// alternatives the others in order; a running gang's pod_sets and variant become the type
// its pods are on (whether it accepts that type or not: it runs there), its alternatives
// the other types it accepts, in order (as queueing::Engine::running() holds a gang
// admitted on one of its variants). Returns the type the gang runs on or prefers; "" and
// `spec` untouched when gpuTypeVariants has none, or when it runs on a node of no type.
Result<std::string> offerOnGpuTypes(queueing::GangSpec& spec,
                                    const std::vector<std::string>& accepted,
                                    const GangPlacement& placement, const GpuTypes& types,
                                    queueing::ResourceNames& names);

// A queue's spec.gpuTypeFungibility (the Queue object's JSON) as the engine's settings:
// whenCanBorrow Borrow stays on a type that fits by borrowing, TryNextType tries the next;
// whenCanPreempt Preempt preempts on the type it prefers, TryNextType tries the next type
// first. Unset fields keep the API's defaults (Borrow, TryNextType).
void readGpuTypeFungibility(const nlohmann::json& queue, queueing::QueueSpec& spec);

}  // namespace troupe::controllers
