#include "controllers/training_job_reconciler.h"

#include <algorithm>
#include <atomic>

#include "api/well_known.h"
#include "common/helper_pool.h"
#include "common/log.h"
#include "controllers/cluster_writer.h"
#include "controllers/cycle_request.h"
#include "controllers/event_writer.h"
#include "controllers/informer_caches.h"
#include "controllers/merge_patch.h"
#include "controllers/object_json.h"
#include "controllers/work_item.h"
#include "kube/resource_type.h"
#include "kube/work_queue.h"
#include "state/state_store.h"

namespace troupe::controllers {

namespace res = kube::resources;

TrainingJobReconciler::TrainingJobReconciler(InformerCaches& caches, ClusterWriter& writer,
                                             EventWriter& events, state::StateStore& state,
                                             kube::WorkQueue& queue, CycleRequest& cycle,
                                             MetricsRegistry& metrics, const TimeSource& time)
    : caches_(caches),
      writer_(writer),
      events_(events),
      state_(state),
      queue_(queue),
      cycle_(cycle),
      metrics_(metrics),
      time_(time) {}

void TrainingJobReconciler::reconcile(const std::string& key) {
  auto job = caches_.trainingJobs().cache().get(key);
  if (!job) return;
  TrainingJobInputs in;
  in.job = *job;
  in.now = now();
  if (auto pg = caches_.podGroups().cache().get(key)) in.pod_group = *pg;
  in.service_exists = caches_.services().cache().get(key) != nullptr;
  in.pods = ObjectList(caches_.podsOfJob(key));
  auto plan = planTrainingJob(in);
  const auto ns = namespaceOf(*job);
  // The job's status, with status.pending left to the scheduler loop: only its removal
  // is ours to write.
  auto writeJobStatus = [&] {
    Json old_status = job->value("status", Json::object());
    Json status = plan.status;
    const bool had_pending = old_status.contains("pending");
    const bool keeps_pending = status.contains("pending");
    old_status.erase("pending");
    status.erase("pending");
    Json patch = mergePatch(old_status, status);
    if (had_pending && !keeps_pending) patch["pending"] = nullptr;
    writer_.writeStatusPatch(res::kTrainingJobs, ns, nameOf(*job), patch);
  };
  // The job's PodGroup, Service and pods are written together, and with them its status
  // unless pods must go first: each write waits for its commit, and a new job's reconcile
  // would otherwise wait for two in turn. Should a create fail, the status written is
  // still the job's and the retry creates what is missing.
  const bool status_with_creates = plan.status_changed && plan.deletions.empty();
  const std::size_t writes = plan.create.size() + (status_with_creates ? 1 : 0);
  std::atomic<bool> create_failed{false};
  writer_.helpers().forEach(writes, kWriteWidth, [&](std::size_t i) {
    if (i == plan.create.size()) return writeJobStatus();
    const Json& object = plan.create[i];
    const auto kind = object.value("kind", "");
    const auto& type = kind == "Pod"       ? res::kPods
                       : kind == "Service" ? res::kServices
                                           : res::kPodGroups;
    auto r = writer_.create(type, ns, object);
    if (!r && !r.error().isAlreadyExists()) {
      log::warn("create failed", {{"job", key}, {"kind", kind}, {"error", r.error().describe()}});
      create_failed = true;
    }
  });
  if (create_failed) {
    queue_.addRateLimited(trainingJobItem(key));
    if (!status_with_creates) return;
  }
  for (const auto& d : plan.deletions) writer_.deletePod(d);
  const auto old_phase = stringAt(*job, "/status/phase");
  const auto new_phase = plan.status.value("phase", "");
  if (plan.status_changed && !status_with_creates) writeJobStatus();
  if (old_phase != new_phase) onPhase(key, *job, old_phase, new_phase, plan);
  const auto uid = stringAt(*job, "/metadata/uid");
  for (const auto& e : plan.events) events_.record(res::kTrainingJobs, ns, nameOf(*job), uid, e);
  if (plan.delete_job) {
    writer_.deleteJob(ns, nameOf(*job));
    account(key, "forget", [&] { return state_.accounting().forget(key); });
  }
  if (plan.requeue_after)
    queue_.addAfter(trainingJobItem(key), std::chrono::seconds(*plan.requeue_after));
  if (!plan.deletions.empty() || !plan.create.empty()) cycle_.ask();
}

void TrainingJobReconciler::account(const std::string& key, const char* what,
                                    const std::function<Status()>& write) {
  if (auto s = state_.transaction(write); !s)
    log::warn("accounting write failed",
              {{"job", key}, {"write", what}, {"error", s.error().describe()}});
}

void TrainingJobReconciler::onPhase(const std::string& key, const Json& job,
                                    const std::string& from, const std::string& to,
                                    const TrainingJobPlan& plan) {
  const auto t = now();
  const auto queue_name = stringAt(job, "/spec/queue");
  log::debug("job phase", {{"job", key}, {"from", from}, {"to", to}});
  auto stopped = [&](state::StopReason reason, const char* what) {
    account(key, what, [&] { return state_.accounting().stopped(key, t, reason); });
  };
  if (to == "Running") {
    auto created = parseTimestamp(stringAt(job, "/metadata/creationTimestamp")).value_or(t);
    metrics_.observe("troupe_submission_to_running_seconds", {{"queue", queue_name}},
                     static_cast<double>(std::max<std::int64_t>(0, t - created)));
  }
  if (to == "Succeeded" || to == "Failed") stopped(state::StopReason::Finished, "finished");
  if (to == "Suspended" && from != "Suspended") stopped(state::StopReason::Suspended, "suspended");
  if (plan.status.value("restarts", 0) > job.value(Json::json_pointer("/status/restarts"), 0)) {
    stopped(state::StopReason::Restarted, "restarted");
    metrics_.add("troupe_gang_restarts_total", {{"queue", queue_name}});
  }
}

}  // namespace troupe::controllers
