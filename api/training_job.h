#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/condition.h"
#include "api/core/pod.h"
#include "api/object_meta.h"
#include "api/resource_list.h"

namespace troupe::api {

enum class TopologyMode { Required, Preferred };
const char* toString(TopologyMode mode);

// Pack the gang into one domain of a node label (troupe.dev/rack, troupe.dev/block).
struct TopologyConstraint {
  std::string level;
  TopologyMode mode = TopologyMode::Preferred;
};

// A failed replica restarts the whole gang, at most max_restarts times, after a backoff.
struct GangRestartPolicy {
  int32_t max_restarts = 3;
  int32_t backoff_seconds = 10;
};

// Defaults are the CRD's and are in place right after decoding.
struct TrainingJobSpec {
  std::string queue;
  std::string priority_class_name;
  bool preemptible = true;
  int32_t replicas = 0;
  std::optional<int32_t> min_replicas;  // unset: equal to replicas (a rigid gang)
  // The PodTemplateSpec as written (encoded back unchanged), and what Troupe reads of it.
  nlohmann::json pod_template = nlohmann::json::object();
  std::map<std::string, std::string> template_labels;
  std::map<std::string, std::string> template_annotations;
  core::PodSpec pod_spec;
  bool suspend = false;
  GangRestartPolicy restart_policy;
  std::optional<TopologyConstraint> topology;
  std::optional<int32_t> ttl_seconds_after_finished;
  std::optional<int64_t> runtime_estimate_seconds;
  // The GPU types the job accepts, most preferred first; empty: any (docs/gpu-types.md).
  std::vector<std::string> gpu_types;

  int32_t minReplicasOrReplicas() const { return min_replicas.value_or(replicas); }
  bool isElastic() const { return minReplicasOrReplicas() < replicas; }
};

enum class JobPhase { Queued, Admitted, Running, Suspended, Succeeded, Failed };
const char* toString(JobPhase phase);
std::optional<JobPhase> parseJobPhase(const std::string& text);

// Why a job is not running, with the numbers the decision was made on, so that
// `kubectl describe` answers "why is my job not running".
struct PendingExplanation {
  std::string reason;   // a PendingReason's name, e.g. QueueAtLimit, NoPlacement (docs/api.md)
  std::string message;  // one human sentence with the numbers
  std::string queue;
  ResourceList request;     // what the gang asks for in all
  ResourceList guaranteed;  // the queue's guarantee
  ResourceList allocated;   // what the queue holds now
  ResourceList limit;       // the queue's limit
  ResourceList fair_share;  // the queue's current fair share
  std::string gpu_type;     // the GPUType it waits for, whose numbers these are; "": none
};

struct TrainingJobStatus {
  int64_t observed_generation = 0;
  std::optional<JobPhase> phase;  // unset until the controller first sees the job
  std::vector<Condition> conditions;
  int32_t replicas = 0;
  int32_t ready_replicas = 0;
  int32_t restarts = 0;
  std::string queued_at, admitted_at, started_at, completed_at;  // RFC 3339
  std::string selector;  // label selector of the job's pods, for the scale subresource
  std::optional<PendingExplanation> pending;
  std::string gpu_type;  // the GPUType the gang runs on; empty: none (no GPUs, or no types)
};

// troupe.dev/v1alpha1 TrainingJob (namespaced).
struct TrainingJob {
  ObjectMeta metadata;
  TrainingJobSpec spec;
  TrainingJobStatus status;

  static TrainingJob fromJson(const nlohmann::json& object, std::vector<Error>& errors);
  nlohmann::json toJson() const;
  std::vector<Error> validate() const;
  // validate() plus the rules that compare with the stored object (queue is immutable).
  std::vector<Error> validateUpdate(const TrainingJob& old) const;

  // What one replica's pod asks of a node, and what the whole gang asks (replicas times).
  Result<ResourceList> podRequests() const;
  Result<ResourceList> gangRequests(int32_t replicas) const;
};

}  // namespace troupe::api
