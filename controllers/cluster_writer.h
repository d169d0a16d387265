#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/clock.h"
#include "controllers/action_plan.h"
#include "controllers/assumed_pods.h"
#include "controllers/object_json.h"
#include "kube/api_error.h"
#include "state/admission_journal.h"

namespace troupe {
class HelperPool;
}
namespace troupe::kube {
class KubeClient;
struct ResourceType;
}  // namespace troupe::kube

// Every write the controllers make to the API, through the client: pods bound and deleted
// (each assumed until the caches show it, controllers/assumed_pods.h), objects created,
// status and annotations patched, jobs deleted. A write that fails is logged with what it
// was for; none is retried here (the reconcile or the next cycle decides again).
// Thread-safe: the scheduling thread and the reconcile workers write at once.
namespace troupe::controllers {

class InformerCaches;

// The field manager of every write.
inline constexpr const char* kFieldManager = "troupe-operator";

// Bindings of one cycle in flight at once, over every gang the cycle admits. The server
// makes writes durable in group commits, so the more are in flight the more share each
// fsync. Draining 20,000 pending pods on 5,000 nodes (`troupe bench scheduler --workload
// pods --backlog 20000`), 32 at once bound 2,350-2,800 pods a second (3 runs), 128 at once
// 3,340-4,300 (7 runs).
inline constexpr std::size_t kBindWidth = 128;
// Writes of one reconcile or one cycle step (a gang's pods, its deletions, status writes)
// in flight at once. Each write waits for the server to make it durable; issued together
// they share the server's commits.
inline constexpr std::size_t kWriteWidth = 16;

class ClusterWriter {
 public:
  // `helpers` carries the writes of a batch several at once; `caches` tells which pod a
  // binding assumes (its uid).
  ClusterWriter(kube::KubeClient& client, InformerCaches& caches, HelperPool& helpers,
                const TimeSource& time);

  kube::KubeClient& client() { return client_; }
  HelperPool& helpers() { return helpers_; }
  AssumedPods& assumed() { return assumed_; }

  // Deletes a pod (with its uid as precondition when given) and assumes it deleted; false
  // when the delete failed for another reason than the pod being gone already.
  bool deletePod(const PodDeletion& deletion);
  // Deletes every pod of `deletions`, several at once.
  void deletePods(const std::vector<PodDeletion>& deletions);

  // The Binding of one pod; any thread. One write per pod: kube-apiserver (and troupe
  // serve) copy the Binding's annotations onto the pod, so the GPU indices arrive with the
  // node. Not assumed: assumeBound() does that.
  // With the GPUType the gang was admitted on, when it has one (troupe.dev/gpu-type).
  bool postBinding(const state::PlannedBinding& binding);
  // What the caches will show once they catch up with a binding.
  void assumeBound(const state::PlannedBinding& binding);
  // Binds every pod of `bindings` at once; returns which were bound. Those bound are
  // assumed either way, so a caller can roll them back.
  std::vector<char> bindAll(const std::vector<state::PlannedBinding>& bindings);

  kube::ApiResult<nlohmann::json> create(const kube::ResourceType& type, const std::string& ns,
                                         const nlohmann::json& object);
  // Writes the difference from `old_status` (as the cache holds it) to `status`.
  void patchStatus(const kube::ResourceType& type, const std::string& ns, const std::string& name,
                   const nlohmann::json& old_status, const nlohmann::json& status);
  // Writes `patch` (a merge patch of the status) to the status subresource.
  void writeStatusPatch(const kube::ResourceType& type, const std::string& ns,
                        const std::string& name, const nlohmann::json& patch);
  // Sets (null: removes) one annotation of the PodGroup "namespace/name".
  void annotateGroup(const std::string& gang, const std::string& key, const nlohmann::json& value);
  // Sets annotations of an object by merge patch; the caller logs a failure.
  kube::ApiResult<nlohmann::json> annotate(const kube::ResourceType& type, const std::string& ns,
                                           const std::string& name,
                                           const nlohmann::json& annotations);
  // Deletes a TrainingJob in the background (its PodGroup, Service and pods follow it).
  void deleteJob(const std::string& ns, const std::string& name);

 private:
  std::int64_t now() const { return epochSeconds(time_.now()); }

  kube::KubeClient& client_;
  InformerCaches& caches_;
  HelperPool& helpers_;
  const TimeSource& time_;
  AssumedPods assumed_;
};

}  // namespace troupe::controllers
