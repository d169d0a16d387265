#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "common/clock.h"
#include "common/metrics_registry.h"
#include "common/result.h"
#include "controllers/object_json.h"
#include "controllers/training_job_plan.h"

namespace troupe::kube {
class WorkQueue;
}
namespace troupe::state {
class StateStore;
}

// Brings a TrainingJob to its spec: what controllers/training_job_plan.h decides from the
// caches (its PodGroup, Service and pods created, pods deleted, its status, its deletion
// once its TTL has passed) carried out through the API, and what a phase change means for
// the job's accounting and metrics. Level-triggered: run again on any change of the job or
// what it owns, and when the plan asks. Any reconcile worker; never two on one job (the
// work queue's rule).
namespace troupe::controllers {

class ClusterWriter;
class CycleRequest;
class EventWriter;
class InformerCaches;

class TrainingJobReconciler {
 public:
  TrainingJobReconciler(InformerCaches& caches, ClusterWriter& writer, EventWriter& events,
                        state::StateStore& state, kube::WorkQueue& queue, CycleRequest& cycle,
                        MetricsRegistry& metrics, const TimeSource& time);

  // The job "namespace/name"; nothing when it is gone.
  void reconcile(const std::string& key);

 private:
  std::int64_t now() const { return epochSeconds(time_.now()); }
  void onPhase(const std::string& key, const Json& job, const std::string& from,
               const std::string& to, const TrainingJobPlan& plan);
  // A job's accounting write, outside a cycle: a failure is logged.
  void account(const std::string& key, const char* what, const std::function<Status()>& write);

  InformerCaches& caches_;
  ClusterWriter& writer_;
  EventWriter& events_;
  state::StateStore& state_;
  kube::WorkQueue& queue_;
  CycleRequest& cycle_;
  MetricsRegistry& metrics_;
  const TimeSource& time_;
};

}  // namespace troupe::controllers
