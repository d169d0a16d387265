#include "api/training_job.h"

#include <fmt/format.h>

#include "api/field_error.h"
#include "api/gpu_fraction.h"
#include "api/gpu_type.h"
#include "api/json_fields.h"
#include "api/names.h"
#include "api/timestamp.h"
#include "api/well_known.h"

namespace troupe::api {

using nlohmann::json;

const char* toString(TopologyMode mode) {
  return mode == TopologyMode::Required ? "Required" : "Preferred";
}

const char* toString(JobPhase phase) {
  switch (phase) {
    case JobPhase::Queued: return "Queued";
    case JobPhase::Admitted: return "Admitted";
    case JobPhase::Running: return "Running";
    case JobPhase::Suspended: return "Suspended";
    case JobPhase::Succeeded: return "Succeeded";
    case JobPhase::Failed: return "Failed";
  }
  return "Queued";
}

std::optional<JobPhase> parseJobPhase(const std::string& text) {
  for (auto phase : {JobPhase::Queued, JobPhase::Admitted, JobPhase::Running, JobPhase::Suspended,
                     JobPhase::Succeeded, JobPhase::Failed}) {
    if (text == toString(phase)) return phase;
  }
  return std::nullopt;
}

namespace {

const std::vector<std::string> kPhases = {"Queued",    "Admitted",  "Running",
                                          "Suspended", "Succeeded", "Failed"};

PendingExplanation pendingFromJson(const json& p, JsonFields& f) {
  PendingExplanation out;
  out.reason = f.string(p, "reason", "status.pending.reason").value_or("");
  out.message = f.string(p, "message", "status.pending.message").value_or("");
  out.queue = f.string(p, "queue", "status.pending.queue").value_or("");
  out.gpu_type = f.string(p, "gpuType", "status.pending.gpuType").value_or("");
  out.request = f.resourceMap(p, "request", "status.pending.request", kIntOrString);
  out.guaranteed = f.resourceMap(p, "guaranteed", "status.pending.guaranteed", kIntOrString);
  out.allocated = f.resourceMap(p, "allocated", "status.pending.allocated", kIntOrString);
  out.limit = f.resourceMap(p, "limit", "status.pending.limit", kIntOrString);
  out.fair_share = f.resourceMap(p, "fairShare", "status.pending.fairShare", kIntOrString);
  return out;
}

json pendingToJson(const PendingExplanation& p) {
  json out = json::object();
  if (!p.reason.empty()) out["reason"] = p.reason;
  if (!p.message.empty()) out["message"] = p.message;
  if (!p.queue.empty()) out["queue"] = p.queue;
  if (!p.gpu_type.empty()) out["gpuType"] = p.gpu_type;
  auto add = [&](const char* key, const ResourceList& r) {
    if (!r.empty()) out[key] = resourcesToJson(r);
  };
  add("request", p.request);
  add("guaranteed", p.guaranteed);
  add("allocated", p.allocated);
  add("limit", p.limit);
  add("fairShare", p.fair_share);
  return out;
}

void nonNegative(std::optional<int64_t> v, const char* path, int64_t min,
                 std::vector<Error>& errors) {
  if (v && *v < min)
    errors.push_back(invalid(path, *v, fmt::format("must be greater than or equal to {}", min)));
}

}  // namespace

TrainingJob TrainingJob::fromJson(const json& object, std::vector<Error>& errors) {
  JsonFields f(errors);
  TrainingJob job;
  if (!object.is_object()) {
    f.typeError("<nil>", object, "object");
    return job;
  }
  f.typeMeta(object, kApiVersion, kTrainingJobKind);
  job.metadata = ObjectMeta::fromJson(object.value("metadata", json()), errors);
  const json* spec = f.object(object, "spec", "spec");
  if (spec == nullptr) {
    if (!object.contains("spec") || object["spec"].is_null()) errors.push_back(required("spec"));
  } else {
    auto& s = job.spec;
    if (auto queue = f.string(*spec, "queue", "spec.queue")) {
      s.queue = *queue;
    } else if (JsonFields::find(*spec, "queue") == nullptr) {
      errors.push_back(required("spec.queue"));
    }
    s.priority_class_name =
        f.string(*spec, "priorityClassName", "spec.priorityClassName").value_or("");
    s.preemptible = f.boolean(*spec, "preemptible", "spec.preemptible").value_or(true);
    if (auto replicas = f.int32(*spec, "replicas", "spec.replicas")) {
      s.replicas = *replicas;
    } else if (JsonFields::find(*spec, "replicas") == nullptr) {
      errors.push_back(required("spec.replicas"));
    }
    s.min_replicas = f.int32(*spec, "minReplicas", "spec.minReplicas");
    if (const json* tmpl = f.object(*spec, "template", "spec.template")) {
      s.pod_template = *tmpl;
      if (const json* meta = f.object(*tmpl, "metadata", "spec.template.metadata")) {
        s.template_labels = f.stringMap(*meta, "labels", "spec.template.metadata.labels");
        s.template_annotations =
            f.stringMap(*meta, "annotations", "spec.template.metadata.annotations");
      }
      const json* pod_spec = f.object(*tmpl, "spec", "spec.template.spec");
      if (pod_spec != nullptr) {
        s.pod_spec = core::PodSpec::fromJson(*pod_spec, "spec.template.spec", errors);
      } else if (JsonFields::find(*tmpl, "spec") == nullptr) {
        errors.push_back(required("spec.template.spec"));
      }
    } else if (JsonFields::find(*spec, "template") == nullptr) {
      errors.push_back(required("spec.template"));
    }
    s.suspend = f.boolean(*spec, "suspend", "spec.suspend").value_or(false);
    if (const json* rp = f.object(*spec, "restartPolicy", "spec.restartPolicy")) {
      s.restart_policy.max_restarts =
          f.int32(*rp, "maxRestarts", "spec.restartPolicy.maxRestarts").value_or(3);
      s.restart_policy.backoff_seconds =
          f.int32(*rp, "backoffSeconds", "spec.restartPolicy.backoffSeconds").value_or(10);
    }
    if (const json* topo = f.object(*spec, "topology", "spec.topology")) {
      TopologyConstraint t;
      auto level = f.string(*topo, "level", "spec.topology.level");
      if (level) {
        t.level = *level;
      } else if (JsonFields::find(*topo, "level") == nullptr) {
        errors.push_back(required("spec.topology.level"));
      }
      if (auto mode = f.string(*topo, "mode", "spec.topology.mode")) {
        if (*mode == "Required") {
          t.mode = TopologyMode::Required;
        } else if (*mode != "Preferred") {
          errors.push_back(notSupported("spec.topology.mode", *mode, {"Required", "Preferred"}));
        }
      }
      s.topology = t;
    }
    s.ttl_seconds_after_finished =
        f.int32(*spec, "ttlSecondsAfterFinished", "spec.ttlSecondsAfterFinished");
    s.runtime_estimate_seconds =
        f.int64(*spec, "runtimeEstimateSeconds", "spec.runtimeEstimateSeconds");
    s.gpu_types = f.stringList(*spec, "gpuTypes", "spec.gpuTypes");
  }
  if (const json* status = f.object(object, "status", "status")) {
    auto& st = job.status;
    st.observed_generation =
        f.int64(*status, "observedGeneration", "status.observedGeneration").value_or(0);
    if (auto phase = f.string(*status, "phase", "status.phase")) {
      st.phase = parseJobPhase(*phase);
      if (!st.phase) errors.push_back(notSupported("status.phase", *phase, kPhases));
    }
    st.conditions = Condition::listFromJson(*status, "status.conditions", errors);
    st.replicas = f.int32(*status, "replicas", "status.replicas").value_or(0);
    st.ready_replicas = f.int32(*status, "readyReplicas", "status.readyReplicas").value_or(0);
    st.restarts = f.int32(*status, "restarts", "status.restarts").value_or(0);
    st.queued_at = f.timestamp(*status, "queuedAt", "status.queuedAt").value_or("");
    st.admitted_at = f.timestamp(*status, "admittedAt", "status.admittedAt").value_or("");
    st.started_at = f.timestamp(*status, "startedAt", "status.startedAt").value_or("");
    st.completed_at = f.timestamp(*status, "completedAt", "status.completedAt").value_or("");
    st.selector = f.string(*status, "selector", "status.selector").value_or("");
    if (const json* pending = f.object(*status, "pending", "status.pending"))
      st.pending = pendingFromJson(*pending, f);
    st.gpu_type = f.string(*status, "gpuType", "status.gpuType").value_or("");
  }
  return job;
}

json TrainingJob::toJson() const {
  json s = json::object();
  s["queue"] = spec.queue;
  if (!spec.priority_class_name.empty()) s["priorityClassName"] = spec.priority_class_name;
  s["preemptible"] = spec.preemptible;
  s["replicas"] = spec.replicas;
  if (spec.min_replicas) s["minReplicas"] = *spec.min_replicas;
  s["template"] = spec.pod_template;
  s["suspend"] = spec.suspend;
  s["restartPolicy"] = {{"maxRestarts", spec.restart_policy.max_restarts},
                        {"backoffSeconds", spec.restart_policy.backoff_seconds}};
  if (spec.topology)
    s["topology"] = {{"level", spec.topology->level}, {"mode", toString(spec.topology->mode)}};
  if (spec.ttl_seconds_after_finished)
    s["ttlSecondsAfterFinished"] = *spec.ttl_seconds_after_finished;
  if (spec.runtime_estimate_seconds) s["runtimeEstimateSeconds"] = *spec.runtime_estimate_seconds;
  if (!spec.gpu_types.empty()) s["gpuTypes"] = spec.gpu_types;

  json st = json::object();
  if (status.observed_generation != 0) st["observedGeneration"] = status.observed_generation;
  if (status.phase) st["phase"] = toString(*status.phase);
  if (!status.conditions.empty()) st["conditions"] = conditionsToJson(status.conditions);
  st["replicas"] = status.replicas;
  st["readyReplicas"] = status.ready_replicas;
  st["restarts"] = status.restarts;
  auto setTime = [&](const char* key, const std::string& value) {
    if (!value.empty()) st[key] = value;
  };
  setTime("queuedAt", status.queued_at);
  setTime("admittedAt", status.admitted_at);
  setTime("startedAt", status.started_at);
  setTime("completedAt", status.completed_at);
  if (!status.selector.empty()) st["selector"] = status.selector;
  if (status.pending) st["pending"] = pendingToJson(*status.pending);
  if (!status.gpu_type.empty()) st["gpuType"] = status.gpu_type;
  return {{"apiVersion", kApiVersion},
          {"kind", kTrainingJobKind},
          {"metadata", metadata.toJson()},
          {"spec", std::move(s)},
          {"status", std::move(st)}};
}

std::vector<Error> TrainingJob::validate() const {
  std::vector<Error> errors;
  validateObjectMeta(metadata, /*namespaced=*/true, errors);
  // The name becomes the troupe.dev/job-name label value of every pod: at most 63 characters.
  if (!metadata.name.empty() && metadata.name.size() > 63) {
    errors.push_back(invalid("metadata.name", metadata.name,
                             "must be no more than 63 characters (it labels the job's pods)"));
  }
  if (spec.queue.empty()) {
    errors.push_back(invalid("spec.queue", spec.queue, "must not be empty"));
  } else if (auto why = checkDnsSubdomain(spec.queue)) {
    errors.push_back(invalid("spec.queue", spec.queue, *why));
  }
  if (spec.priority_class_name.size() > 253)
    errors.push_back(tooLong("spec.priorityClassName", 253));
  if (spec.replicas < 1) {
    errors.push_back(invalid("spec.replicas", spec.replicas, "must be greater than or equal to 1"));
  } else if (spec.replicas > 100000) {
    errors.push_back(
        invalid("spec.replicas", spec.replicas, "must be less than or equal to 100000"));
  }
  if (spec.min_replicas) {
    if (*spec.min_replicas < 1) {
      errors.push_back(
          invalid("spec.minReplicas", *spec.min_replicas, "must be greater than or equal to 1"));
    } else if (*spec.min_replicas > spec.replicas) {
      errors.push_back(invalid("spec.minReplicas", *spec.min_replicas,
                               "must be less than or equal to spec.replicas"));
    }
  }
  core::validatePodSpec(spec.pod_spec, "spec.template.spec", errors);
  validateGpuFraction(spec.template_annotations, spec.pod_spec, "spec.template.metadata",
                      "spec.template.spec", errors);
  if (!spec.pod_spec.scheduler_name.empty() && spec.pod_spec.scheduler_name != kSchedulerName) {
    errors.push_back(invalid("spec.template.spec.schedulerName", spec.pod_spec.scheduler_name,
                             "must be empty or \"troupe\": Troupe places a TrainingJob's pods"));
  }
  if (!spec.pod_spec.node_name.empty()) {
    errors.push_back(forbidden("spec.template.spec.nodeName",
                               "Troupe chooses the nodes of a TrainingJob's pods"));
  }
  for (const auto& [key, value] : spec.template_labels) {
    if (auto why = checkQualifiedName(key))
      errors.push_back(invalid("spec.template.metadata.labels", key, *why));
    if (auto why = checkLabelValue(value))
      errors.push_back(invalid(keyPath("spec.template.metadata.labels", key), value, *why));
  }
  if (spec.topology) {
    if (spec.topology->level.empty()) {
      errors.push_back(invalid("spec.topology.level", "", "must not be empty"));
    } else if (auto why = checkQualifiedName(spec.topology->level)) {
      errors.push_back(invalid("spec.topology.level", spec.topology->level, *why));
    }
  }
  nonNegative(spec.restart_policy.max_restarts, "spec.restartPolicy.maxRestarts", 0, errors);
  nonNegative(spec.restart_policy.backoff_seconds, "spec.restartPolicy.backoffSeconds", 0, errors);
  nonNegative(spec.ttl_seconds_after_finished, "spec.ttlSecondsAfterFinished", 0, errors);
  nonNegative(spec.runtime_estimate_seconds, "spec.runtimeEstimateSeconds", 1, errors);
  if (auto requests = spec.pod_spec.requests(); !requests) errors.push_back(requests.error());
  validateGpuTypeList(spec.gpu_types, "spec.gpuTypes", errors);
  validateConditions(status.conditions, "status.conditions", errors);
  validateTimestamp(status.queued_at, "status.queuedAt", errors);
  validateTimestamp(status.admitted_at, "status.admittedAt", errors);
  validateTimestamp(status.started_at, "status.startedAt", errors);
  validateTimestamp(status.completed_at, "status.completedAt", errors);
  return errors;
}

std::vector<Error> TrainingJob::validateUpdate(const TrainingJob& old) const {
  std::vector<Error> errors = validate();
  if (spec.queue != old.spec.queue)
    errors.push_back(invalid("spec.queue", spec.queue, "field is immutable"));
  return errors;
}

Result<ResourceList> TrainingJob::podRequests() const { return spec.pod_spec.requests(); }

Result<ResourceList> TrainingJob::gangRequests(int32_t replicas) const {
  auto per_pod = podRequests();
  if (!per_pod) return per_pod;
  ResourceList out;
  for (const auto& [name, q] : *per_pod) {
    auto total = q.times(replicas, name);
    if (!total) return total.error();
    out.emplace(name, *total);
  }
  return out;
}

}  // namespace troupe::api
