#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/condition.h"
#include "api/label_selector.h"
#include "api/object_meta.h"
#include "api/quantity.h"
#include "api/resource_list.h"

namespace troupe::api {

// The quota of one GPU type within a queue's nvidia.com/gpu quota. To the scheduler it is
// the quota of the resource gpu.troupe.dev/<name> (api/gpu_type.h); unset values mean what
// they mean in QueueResourceQuota. The GPU's overQuotaWeight applies to every type.
struct GpuTypeQuota {
  std::string name;
  std::optional<Quantity> guaranteed;
  std::optional<Quantity> limit;
  std::optional<Quantity> lending_limit;
};

// The quota of one resource in a queue. Unset values have the meanings noted; the helper
// functions give the effective values.
struct QueueResourceQuota {
  std::optional<Quantity> guaranteed;         // unset: 0
  std::optional<Quantity> limit;              // unset: no limit
  std::optional<Quantity> over_quota_weight;  // unset: 1
  std::optional<Quantity> lending_limit;      // unset: lend all unused guarantee
  // Only under nvidia.com/gpu: quotas per GPU type, names unique.
  std::vector<GpuTypeQuota> gpu_types;

  Quantity guaranteedOrZero() const { return guaranteed.value_or(Quantity()); }
  Quantity weightOrOne() const { return over_quota_weight.value_or(Quantity::fromMilli(1000)); }
};

enum class WithinQueuePreemption { LowerPriority, Never };
const char* toString(WithinQueuePreemption value);

struct QueuePreemption {
  WithinQueuePreemption within_queue = WithinQueuePreemption::LowerPriority;
  bool reclaim = true;
  int32_t min_runtime_seconds = 0;
};

// What a gang that accepts several GPU types does when its preferred type has room only by
// borrowing (beyond the queue's guarantee of that type) or only by preempting: take it, or
// try the next type it accepts first (Kueue's flavorFungibility).
enum class WhenCanBorrow { Borrow, TryNextType };
enum class WhenCanPreempt { Preempt, TryNextType };
const char* toString(WhenCanBorrow value);
const char* toString(WhenCanPreempt value);

struct GpuTypeFungibility {
  WhenCanBorrow when_can_borrow = WhenCanBorrow::Borrow;
  WhenCanPreempt when_can_preempt = WhenCanPreempt::TryNextType;
};

// Defaults are the CRD's and are in place right after decoding.
struct QueueSpec {
  std::string parent;  // empty: top level
  std::map<std::string, QueueResourceQuota> resources;
  int32_t priority = 0;
  std::optional<int64_t> max_wait_seconds;  // unset: never starving
  QueuePreemption preemption;
  GpuTypeFungibility gpu_type_fungibility;
  // Which namespaces may submit to the queue: those listed, and those the selector
  // matches. Both unset: every namespace (docs/api.md says why).
  std::optional<std::vector<std::string>> namespaces;
  std::optional<LabelSelector> namespace_selector;

  // The quota of every resource the scheduler sees: spec.resources, and each GPU type's
  // quota under the resource gpu.troupe.dev/<type>.
  std::map<std::string, QueueResourceQuota> quotasByResource() const;
  // The field that sets the guarantee of `resource` (a key of quotasByResource()):
  // spec.resources[cpu].guaranteed, spec.resources[nvidia.com/gpu].gpuTypes[0].guaranteed.
  std::string guaranteedPath(const std::string& resource) const;
  // Whether no field restricts the namespaces.
  bool admitsEveryNamespace() const { return !namespaces && !namespace_selector; }
  // Whether namespace `ns`, with `labels`, may submit to the queue. With `labels` null
  // (not known) only the list decides.
  bool admitsNamespace(const std::string& ns,
                       const std::map<std::string, std::string>* labels) const;
  // Which namespaces the queue admits, for messages: "team-a", "team-a, team-b and those
  // labelled team=a", "every namespace", "no namespace".
  std::string describeNamespaces() const;
};

struct QueueStatus {
  int64_t observed_generation = 0;
  ResourceList allocated;
  ResourceList fair_share;
  int32_t pending = 0;
  int32_t admitted = 0;
  int32_t running = 0;
  std::vector<Condition> conditions;
};

// troupe.dev/v1alpha1 Queue (cluster-scoped).
struct Queue {
  ObjectMeta metadata;
  QueueSpec spec;
  QueueStatus status;

  static Queue fromJson(const nlohmann::json& object, std::vector<Error>& errors);
  nlohmann::json toJson() const;
  // Every rule, all errors at once.
  std::vector<Error> validate() const;
  std::vector<Error> validateUpdate(const Queue& old) const;
};

}  // namespace troupe::api
