#include "api/pod_group.h"

#include "api/field_error.h"
#include "api/gpu_type.h"
#include "api/json_fields.h"
#include "api/names.h"
#include "api/well_known.h"

namespace troupe::api {

using nlohmann::json;

const char* toString(PodGroupPhase phase) {
  switch (phase) {
    case PodGroupPhase::Pending: return "Pending";
    case PodGroupPhase::Admitted: return "Admitted";
    case PodGroupPhase::Running: return "Running";
    case PodGroupPhase::Succeeded: return "Succeeded";
    case PodGroupPhase::Failed: return "Failed";
  }
  return "Pending";
}

std::optional<PodGroupPhase> parsePodGroupPhase(const std::string& text) {
  for (auto phase : {PodGroupPhase::Pending, PodGroupPhase::Admitted, PodGroupPhase::Running,
                     PodGroupPhase::Succeeded, PodGroupPhase::Failed}) {
    if (text == toString(phase)) return phase;
  }
  return std::nullopt;
}

PodGroup PodGroup::fromJson(const json& object, std::vector<Error>& errors) {
  JsonFields f(errors);
  PodGroup pg;
  if (!object.is_object()) {
    f.typeError("<nil>", object, "object");
    return pg;
  }
  f.typeMeta(object, kApiVersion, kPodGroupKind);
  pg.metadata = ObjectMeta::fromJson(object.value("metadata", json()), errors);
  const json* spec = f.object(object, "spec", "spec");
  if (spec == nullptr) {
    if (JsonFields::find(object, "spec") == nullptr) errors.push_back(required("spec"));
  } else {
    if (auto v = f.int32(*spec, "minMember", "spec.minMember")) {
      pg.spec.min_member = *v;
    } else if (JsonFields::find(*spec, "minMember") == nullptr) {
      errors.push_back(required("spec.minMember"));
    }
    if (auto v = f.string(*spec, "queue", "spec.queue")) {
      pg.spec.queue = *v;
    } else if (JsonFields::find(*spec, "queue") == nullptr) {
      errors.push_back(required("spec.queue"));
    }
    pg.spec.priority_class_name =
        f.string(*spec, "priorityClassName", "spec.priorityClassName").value_or("");
    pg.spec.min_resources = f.resourceMap(*spec, "minResources", "spec.minResources", kIntOrString);
    pg.spec.schedule_timeout_seconds =
        f.int32(*spec, "scheduleTimeoutSeconds", "spec.scheduleTimeoutSeconds");
    pg.spec.gpu_types = f.stringList(*spec, "gpuTypes", "spec.gpuTypes");
  }
  if (const json* status = f.object(object, "status", "status")) {
    auto& st = pg.status;
    st.observed_generation =
        f.int64(*status, "observedGeneration", "status.observedGeneration").value_or(0);
    if (auto phase = f.string(*status, "phase", "status.phase")) {
      st.phase = parsePodGroupPhase(*phase);
      if (!st.phase)
        errors.push_back(notSupported("status.phase", *phase,
                                      {"Pending", "Admitted", "Running", "Succeeded", "Failed"}));
    }
    st.scheduled = f.int32(*status, "scheduled", "status.scheduled").value_or(0);
    st.running = f.int32(*status, "running", "status.running").value_or(0);
    st.succeeded = f.int32(*status, "succeeded", "status.succeeded").value_or(0);
    st.failed = f.int32(*status, "failed", "status.failed").value_or(0);
    st.conditions = Condition::listFromJson(*status, "status.conditions", errors);
    st.gpu_type = f.string(*status, "gpuType", "status.gpuType").value_or("");
  }
  return pg;
}

json PodGroup::toJson() const {
  json s = {{"minMember", spec.min_member}, {"queue", spec.queue}};
  if (!spec.priority_class_name.empty()) s["priorityClassName"] = spec.priority_class_name;
  if (!spec.min_resources.empty()) s["minResources"] = resourcesToJson(spec.min_resources);
  if (spec.schedule_timeout_seconds) s["scheduleTimeoutSeconds"] = *spec.schedule_timeout_seconds;
  if (!spec.gpu_types.empty()) s["gpuTypes"] = spec.gpu_types;
  json st = json::object();
  if (status.observed_generation != 0) st["observedGeneration"] = status.observed_generation;
  if (status.phase) st["phase"] = toString(*status.phase);
  st["scheduled"] = status.scheduled;
  st["running"] = status.running;
  st["succeeded"] = status.succeeded;
  st["failed"] = status.failed;
  if (!status.conditions.empty()) st["conditions"] = conditionsToJson(status.conditions);
  if (!status.gpu_type.empty()) st["gpuType"] = status.gpu_type;
  return {{"apiVersion", kApiVersion},
          {"kind", kPodGroupKind},
          {"metadata", metadata.toJson()},
          {"spec", std::move(s)},
          {"status", std::move(st)}};
}

std::vector<Error> PodGroup::validate() const {
  std::vector<Error> errors;
  validateObjectMeta(metadata, /*namespaced=*/true, errors);
  if (!metadata.name.empty() && metadata.name.size() > 63) {
    errors.push_back(invalid("metadata.name", metadata.name,
                             "must be no more than 63 characters (it is a label value on pods)"));
  }
  if (spec.min_member < 1) {
    errors.push_back(
        invalid("spec.minMember", spec.min_member, "must be greater than or equal to 1"));
  } else if (spec.min_member > 100000) {
    errors.push_back(
        invalid("spec.minMember", spec.min_member, "must be less than or equal to 100000"));
  }
  if (spec.queue.empty()) {
    errors.push_back(invalid("spec.queue", spec.queue, "must not be empty"));
  } else if (auto why = checkDnsSubdomain(spec.queue)) {
    errors.push_back(invalid("spec.queue", spec.queue, *why));
  }
  if (spec.priority_class_name.size() > 253)
    errors.push_back(tooLong("spec.priorityClassName", 253));
  validateResourceNames(spec.min_resources, "spec.minResources", errors);
  for (const auto& [name, q] : spec.min_resources) {
    if (q.isNegative())
      errors.push_back(invalid(keyPath("spec.minResources", name), q.toString(),
                               "must be greater than or equal to 0"));
  }
  if (spec.schedule_timeout_seconds && *spec.schedule_timeout_seconds < 1)
    errors.push_back(invalid("spec.scheduleTimeoutSeconds", *spec.schedule_timeout_seconds,
                             "must be greater than or equal to 1"));
  validateGpuTypeList(spec.gpu_types, "spec.gpuTypes", errors);
  validateConditions(status.conditions, "status.conditions", errors);
  return errors;
}

std::vector<Error> PodGroup::validateUpdate(const PodGroup& old) const {
  std::vector<Error> errors = validate();
  if (spec.queue != old.spec.queue)
    errors.push_back(invalid("spec.queue", spec.queue, "field is immutable"));
  return errors;
}

}  // namespace troupe::api
