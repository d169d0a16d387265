#include "controllers/training_job_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "api/phases.h"
#include "api/well_known.h"
#include "common/check.h"
#include "controllers/annotations.h"
#include "controllers/conditions.h"
#include "controllers/first_status.h"
#include "controllers/job_objects.h"
#include "controllers/object_json.h"
#include "queueing/decisions.h"

namespace troupe::controllers {

using Json = nlohmann::json;

namespace {

bool podFailed(const Json& pod) { return stringAt(pod, "/status/phase") == "Failed"; }
bool podSucceeded(const Json& pod) { return stringAt(pod, "/status/phase") == "Succeeded"; }
bool podLive(const Json& pod) { return !podFailed(pod) && !podSucceeded(pod); }
bool podBound(const Json& pod) { return !stringAt(pod, "/spec/nodeName").empty(); }
bool podRunning(const Json& pod) { return stringAt(pod, "/status/phase") == "Running"; }

std::int32_t restartOf(const Json& pod) {
  auto text = annotation(pod, kGangRestartAnnotation);
  return text.empty() ? 0 : std::atoi(text.c_str());
}

std::int32_t indexOf(const Json& pod) {
  auto text = label(pod, api::kReplicaIndexLabel);
  return text.empty() ? -1 : std::atoi(text.c_str());
}

std::string validate(const Json& job) {
  auto replicas = intAt(job, "/spec/replicas", 0);
  auto min = intAt(job, "/spec/minReplicas", replicas);
  if (replicas < 1)
    return fmt::format("spec.replicas: Invalid value: {}: must be greater than or equal to 1",
                       replicas);
  if (min < 1 || min > replicas)
    return fmt::format(
        "spec.minReplicas: Invalid value: {}: must be between 1 and spec.replicas "
        "({})",
        min, replicas);
  if (stringAt(job, "/spec/queue").empty()) return "spec.queue: Required value";
  return {};
}

void setPhase(Json& status, const std::string& phase) {
  TROUPE_CHECK(api::isListedPhase(api::kTrainingJobPhases, phase),
               "TrainingJob phase {} is not in api/phases.h", phase);
  status["phase"] = phase;
}

void setOnce(Json& status, const char* field, std::int64_t now) {
  if (!status.contains(field) || !status[field].is_string() ||
      status[field].get<std::string>().empty())
    status[field] = formatTimestamp(now);
}

std::int64_t backoffSeconds(const Json& job, std::int64_t restarts) {
  std::int64_t base = intAt(job, "/spec/restartPolicy/backoffSeconds", 10);
  std::int64_t b = base;
  for (std::int64_t i = 1; i < restarts && b < 600; ++i) b *= 2;
  return std::min<std::int64_t>(b, std::max<std::int64_t>(base, 600));
}

// The Inadmissible condition follows the scheduler's status.pending: True while it says the
// queued job can never be admitted as the queues and nodes are (with its message), False
// once it says anything else or the job leaves the queue. Turning True records one
// Warning event; the condition being True already says it was recorded.
void noteInadmissible(Json& status, const Json& old_status, const std::string& key,
                      std::int64_t now, std::int64_t generation, std::vector<EventRecord>& events) {
  const bool queued = status.value("phase", "") == "Queued";
  const Json* pending = status.contains("pending") ? &status["pending"] : nullptr;
  const bool never = queued && pending != nullptr && pending->is_object() &&
                     pending->value("reason", "") ==
                         queueing::pendingReasonName(queueing::PendingReason::Inadmissible);
  if (never) {
    const std::string message = pending->value("message", "");
    setCondition(status, std::string(api::kConditionInadmissible), true, "Inadmissible", message,
                 now, generation);
    if (!conditionIsTrue(old_status, std::string(api::kConditionInadmissible)))
      events.push_back(EventRecord{key, "Warning", "Inadmissible", message});
  } else if (findCondition(status, std::string(api::kConditionInadmissible))) {
    setCondition(status, std::string(api::kConditionInadmissible), false,
                 queued ? "Admissible" : "NotQueued", "", now, generation);
  }
}

}  // namespace

TrainingJobPlan planTrainingJob(const TrainingJobInputs& in) {
  TrainingJobPlan plan;
  const Json& job = in.job;
  const auto key = keyOf(job);
  const auto name = nameOf(job);
  const auto generation = intAt(job, "/metadata/generation", 0);
  Json status = job.value("status", Json::object());
  const Json old_status = status;
  const std::string old_phase = status.value("phase", "");
  auto restarts = static_cast<std::int32_t>(status.value("restarts", 0));
  const auto replicas = static_cast<std::int32_t>(intAt(job, "/spec/replicas", 1));
  const auto min_replicas = static_cast<std::int32_t>(intAt(job, "/spec/minReplicas", replicas));

  auto deleteAll = [&](bool live_only) {
    for (const auto& p : in.pods) {
      if (isDeleting(p) || (live_only && !podLive(p))) continue;
      plan.deletions.push_back(
          {namespaceOf(p), nameOf(p), stringAt(p, "/metadata/uid"), key, "JobStopped"});
    }
  };
  // Every path ends here, once: the plan (with the pods it creates) is moved out, not copied.
  auto finish = [&]() {
    noteInadmissible(status, old_status, key, in.now, generation, plan.events);
    status["observedGeneration"] = generation;
    plan.status_changed = status != old_status;
    plan.status = std::move(status);
    return std::move(plan);
  };

  // 1. Finished.
  if (old_phase == "Succeeded" || old_phase == "Failed") {
    deleteAll(true);
    auto ttl = intAt(job, "/spec/ttlSecondsAfterFinished", -1);
    auto completed = parseTimestamp(status.value("completedAt", "")).value_or(in.now);
    if (ttl >= 0) {
      if (in.now >= completed + ttl) {
        plan.delete_job = true;
      } else {
        plan.requeue_after = completed + ttl - in.now;
      }
    }
    return finish();
  }
  if (isDeleting(job)) {
    deleteAll(false);
    return finish();
  }

  // 2. Invalid spec.
  if (auto problem = validate(job); !problem.empty()) {
    setCondition(status, "Valid", false, "InvalidSpec", problem, in.now, generation);
    if (old_phase.empty()) setPhase(status, "Queued");
    return finish();
  }
  if (findCondition(status, "Valid"))
    setCondition(status, "Valid", true, "Valid", "", in.now, generation);

  setOnce(status, "queuedAt",
          parseTimestamp(stringAt(job, "/metadata/creationTimestamp")).value_or(in.now));
  status["selector"] = fmt::format("{}={}", api::kJobNameLabel, name);

  // 3. PodGroup and Service.
  if (!in.pod_group) {
    auto submitted = parseTimestamp(stringAt(job, "/metadata/creationTimestamp")).value_or(in.now);
    plan.create.push_back(renderPodGroup(job, submitted));
  }
  if (!in.service_exists) plan.create.push_back(renderService(job));

  auto countBound = [&]() {
    std::int32_t n = 0;
    for (const auto& p : in.pods)
      if (podLive(p) && podBound(p) && !isDeleting(p)) ++n;
    return n;
  };

  // 4. Suspended.
  if (boolAt(job, "/spec/suspend", false)) {
    deleteAll(false);
    if (old_phase != "Suspended")
      plan.events.push_back({key, "Normal", "Suspended", "spec.suspend is true: pods deleted"});
    setPhase(status, "Suspended");
    setCondition(status, "Suspended", true, "Suspended", "spec.suspend is true", in.now,
                 generation);
    setCondition(status, "Admitted", false, "Suspended", "", in.now, generation);
    setCondition(status, "Running", false, "Suspended", "", in.now, generation);
    status["replicas"] = 0;
    status["readyReplicas"] = 0;
    return finish();
  }

  // 5. A failed pod of the current gang: restart the gang, or fail the job.
  const Json* failed = nullptr;
  for (const auto& p : in.pods)
    if (podFailed(p) && restartOf(p) == restarts && !isDeleting(p)) failed = &p;
  if (failed) {
    const auto max_restarts = intAt(job, "/spec/restartPolicy/maxRestarts", 3);
    std::string why = fmt::format("pod {} failed", nameOf(*failed));
    if (restarts >= max_restarts) {
      // Finished pods stay for their logs; running ones release their nodes.
      deleteAll(true);
      setPhase(status, "Failed");
      setOnce(status, "completedAt", in.now);
      setCondition(status, "Failed", true, "RestartLimitExceeded",
                   fmt::format("{}; the gang was restarted {} times (maxRestarts {})", why,
                               restarts, max_restarts),
                   in.now, generation);
      setCondition(status, "Running", false, "Failed", "", in.now, generation);
      status.erase("pending");
      plan.events.push_back({key, "Warning", "Failed",
                             fmt::format("{}; restart limit {} reached", why, max_restarts)});
      return finish();
    }
    deleteAll(false);
    restarts += 1;
    status["restarts"] = restarts;
    setPhase(status, "Queued");
    setCondition(status, "Restarting", true, "PodFailed",
                 fmt::format("{}; restarting the whole gang (restart {} of {})", why, restarts,
                             max_restarts),
                 in.now, generation);
    setCondition(status, "Running", false, "Restarting", "", in.now, generation);
    setCondition(status, "Admitted", false, "Restarting", "", in.now, generation);
    status["replicas"] = 0;
    status["readyReplicas"] = 0;
    plan.events.push_back(
        {key, "Warning", "Restarting",
         fmt::format("{}; restarting the gang ({} of {})", why, restarts, max_restarts)});
    plan.requeue_after = backoffSeconds(job, restarts);
    return finish();
  }

  // Waiting out the restart backoff: old pods go, new ones wait.
  if (conditionIsTrue(status, "Restarting")) {
    bool old_left = false;
    for (const auto& p : in.pods) {
      if (restartOf(p) == restarts) continue;
      old_left = true;
      if (!isDeleting(p))
        plan.deletions.push_back(
            {namespaceOf(p), nameOf(p), stringAt(p, "/metadata/uid"), key, "Restarting"});
    }
    const auto* c = findCondition(status, "Restarting");
    auto since = parseTimestamp(c->value("lastTransitionTime", "")).value_or(in.now);
    auto until = since + backoffSeconds(job, restarts);
    if (old_left || in.now < until) {
      if (in.now < until) plan.requeue_after = until - in.now;
      return finish();
    }
    setCondition(status, "Restarting", false, "BackoffElapsed", "", in.now, generation);
  }

  // 6. Succeeded.
  bool any_succeeded = false;
  for (const auto& p : in.pods)
    if (podSucceeded(p) && restartOf(p) == restarts) any_succeeded = true;
  if (any_succeeded && countBound() == 0) {
    deleteAll(true);
    setPhase(status, "Succeeded");
    setOnce(status, "completedAt", in.now);
    setCondition(status, "Succeeded", true, "Completed", "the gang completed", in.now, generation);
    setCondition(status, "Running", false, "Completed", "", in.now, generation);
    status["replicas"] = 0;
    status["readyReplicas"] = 0;
    status.erase("pending");
    plan.events.push_back({key, "Normal", "Succeeded", "the gang completed"});
    if (auto ttl = intAt(job, "/spec/ttlSecondsAfterFinished", -1); ttl >= 0)
      plan.requeue_after = ttl;
    return finish();
  }

  // 7. The pods of the current restart, and the phase they give.
  std::set<std::string> existing;
  for (const auto& p : in.pods) existing.insert(nameOf(p));
  if (!any_succeeded) {
    for (std::int32_t i = 0; i < replicas; ++i) {
      if (!existing.contains(podName(name, i))) plan.create.push_back(renderPod(job, i, restarts));
    }
  }
  for (const auto& p : in.pods) {
    if (indexOf(p) >= replicas && !isDeleting(p))
      plan.deletions.push_back(
          {namespaceOf(p), nameOf(p), stringAt(p, "/metadata/uid"), key, "ScaledDown"});
  }
  std::int32_t bound = 0, running = 0;
  std::string gpu_type;  // the GPUType its bound pods were placed on (one type a gang)
  for (const auto& p : in.pods) {
    if (!podLive(p) || !podBound(p) || isDeleting(p) || indexOf(p) >= replicas) continue;
    ++bound;
    if (podRunning(p)) ++running;
    if (gpu_type.empty()) gpu_type = annotation(p, api::kGpuTypeAnnotation);
  }
  if (!gpu_type.empty()) status["gpuType"] = gpu_type;
  status["replicas"] = bound;
  status["readyReplicas"] = running;
  const Json pg_status = in.pod_group ? in.pod_group->value("status", Json::object()) : Json();
  if (bound == 0) {
    setCondition(status, "Admitted", false, "Pending", "waiting for the gang to be admitted",
                 in.now, generation);
    setCondition(status, "Running", false, "Pending", "", in.now, generation);
    const auto preemptor = in.pod_group ? annotation(*in.pod_group, kPreemptedByAnnotation) : "";
    if (!preemptor.empty() || conditionIsTrue(pg_status, "Preempted")) {
      const auto* c = findCondition(pg_status, "Preempted");
      setPhase(status, "Suspended");
      setCondition(status, "Suspended", true, "Preempted",
                   !preemptor.empty() ? "Preempted by " + preemptor : c->value("message", ""),
                   in.now, generation);
    } else if (auto wait = firstStatusWait(job, in.now)) {
      // A new job's first status waits for its first scheduling decision
      // (controllers/first_status.h): nothing is written yet.
      plan.status = old_status;
      plan.status_changed = false;
      plan.requeue_after = *wait;
      return plan;
    } else {
      setPhase(status, "Queued");
      if (findCondition(status, "Suspended"))
        setCondition(status, "Suspended", false, "Resumed", "", in.now, generation);
    }
    return finish();
  }
  status.erase("pending");
  if (findCondition(status, "Suspended"))
    setCondition(status, "Suspended", false, "Admitted", "", in.now, generation);
  status["admittedAt"] = old_phase == "Admitted" || old_phase == "Running"
                             ? status.value("admittedAt", formatTimestamp(in.now))
                             : formatTimestamp(in.now);
  setCondition(status, "Admitted", true, "Admitted",
               fmt::format("{} of {} pods bound", bound, replicas), in.now, generation);
  if (running >= min_replicas && running == bound) {
    setPhase(status, "Running");
    setOnce(status, "startedAt", in.now);
    setCondition(status, "Running", true, "PodsRunning",
                 fmt::format("{} of {} pods running", running, replicas), in.now, generation);
  } else {
    setPhase(status, "Admitted");
    setCondition(status, "Running", false, "PodsStarting",
                 fmt::format("{} of {} bound pods running", running, bound), in.now, generation);
  }
  return finish();
}

}  // namespace troupe::controllers
