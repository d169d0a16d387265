#include "api/queue.h"

#include <fmt/format.h>

#include <algorithm>

#include "api/field_error.h"
#include "api/gpu_type.h"
#include "api/json_fields.h"
#include "api/names.h"
#include "api/well_known.h"

namespace troupe::api {

using nlohmann::json;

const char* toString(WithinQueuePreemption value) {
  return value == WithinQueuePreemption::Never ? "Never" : "LowerPriority";
}

const char* toString(WhenCanBorrow value) {
  return value == WhenCanBorrow::TryNextType ? "TryNextType" : "Borrow";
}

const char* toString(WhenCanPreempt value) {
  return value == WhenCanPreempt::Preempt ? "Preempt" : "TryNextType";
}

std::map<std::string, QueueResourceQuota> QueueSpec::quotasByResource() const {
  std::map<std::string, QueueResourceQuota> out;
  for (const auto& [name, quota] : resources) {
    QueueResourceQuota copy = quota;
    copy.gpu_types.clear();
    out.emplace(name, std::move(copy));
    for (const auto& type : quota.gpu_types) {
      QueueResourceQuota per_type;
      per_type.guaranteed = type.guaranteed;
      per_type.limit = type.limit;
      per_type.lending_limit = type.lending_limit;
      out.emplace(gpuTypeResource(type.name), std::move(per_type));
    }
  }
  return out;
}

std::string QueueSpec::guaranteedPath(const std::string& resource) const {
  const std::string gpu = keyPath("spec.resources", kGpuResource);
  if (auto it = resources.find(std::string(kGpuResource)); it != resources.end()) {
    const auto& types = it->second.gpu_types;
    for (std::size_t i = 0; i < types.size(); ++i)
      if (gpuTypeResource(types[i].name) == resource)
        return indexPath(gpu + ".gpuTypes", i) + ".guaranteed";
  }
  return keyPath("spec.resources", resource) + ".guaranteed";
}

bool QueueSpec::admitsNamespace(const std::string& ns,
                                const std::map<std::string, std::string>* labels) const {
  if (admitsEveryNamespace()) return true;
  if (namespaces && std::find(namespaces->begin(), namespaces->end(), ns) != namespaces->end())
    return true;
  return namespace_selector && labels != nullptr && namespace_selector->matches(*labels);
}

std::string QueueSpec::describeNamespaces() const {
  if (admitsEveryNamespace()) return "every namespace";
  std::vector<std::string> parts;
  if (namespaces && !namespaces->empty())
    parts.push_back(fmt::format("{}", fmt::join(*namespaces, ", ")));
  if (namespace_selector) {
    auto selector = namespace_selector->describe();
    parts.push_back(selector.empty() ? std::string("every namespace")
                                     : fmt::format("namespaces labelled {}", selector));
  }
  if (parts.empty()) return "no namespace";
  return fmt::format("{}", fmt::join(parts, " and "));
}

Queue Queue::fromJson(const json& object, std::vector<Error>& errors) {
  JsonFields f(errors);
  Queue q;
  if (!object.is_object()) {
    f.typeError("<nil>", object, "object");
    return q;
  }
  f.typeMeta(object, kApiVersion, kQueueKind);
  q.metadata = ObjectMeta::fromJson(object.value("metadata", json()), errors);
  if (const json* spec = f.object(object, "spec", "spec")) {
    q.spec.parent = f.string(*spec, "parent", "spec.parent").value_or("");
    if (const json* resources = f.object(*spec, "resources", "spec.resources")) {
      for (const auto& [name, entry] : resources->items()) {
        std::string p = keyPath("spec.resources", name);
        if (entry.is_null()) continue;
        if (!entry.is_object()) {
          f.typeError(p, entry, "object");
          continue;
        }
        QueueResourceQuota quota;
        quota.guaranteed = f.quantity(entry, "guaranteed", p + ".guaranteed", kIntOrString);
        quota.limit = f.quantity(entry, "limit", p + ".limit", kIntOrString);
        quota.over_quota_weight =
            f.quantity(entry, "overQuotaWeight", p + ".overQuotaWeight", kIntOrString);
        quota.lending_limit = f.quantity(entry, "lendingLimit", p + ".lendingLimit", kIntOrString);
        if (const json* types = f.array(entry, "gpuTypes", p + ".gpuTypes")) {
          for (size_t i = 0; i < types->size(); ++i) {
            const json& t = (*types)[i];
            std::string tp = indexPath(p + ".gpuTypes", i);
            if (!t.is_object()) {
              f.typeError(tp, t, "object");
              continue;
            }
            GpuTypeQuota type;
            type.name = f.string(t, "name", tp + ".name").value_or("");
            if (JsonFields::find(t, "name") == nullptr) errors.push_back(required(tp + ".name"));
            type.guaranteed = f.quantity(t, "guaranteed", tp + ".guaranteed", kIntOrString);
            type.limit = f.quantity(t, "limit", tp + ".limit", kIntOrString);
            type.lending_limit = f.quantity(t, "lendingLimit", tp + ".lendingLimit", kIntOrString);
            quota.gpu_types.push_back(std::move(type));
          }
        }
        q.spec.resources.emplace(name, quota);
      }
    }
    q.spec.priority = f.int32(*spec, "priority", "spec.priority").value_or(0);
    q.spec.max_wait_seconds = f.int64(*spec, "maxWaitSeconds", "spec.maxWaitSeconds");
    if (const json* p = f.object(*spec, "preemption", "spec.preemption")) {
      auto within = f.string(*p, "withinQueue", "spec.preemption.withinQueue");
      if (within) {
        if (*within == "Never") {
          q.spec.preemption.within_queue = WithinQueuePreemption::Never;
        } else if (*within != "LowerPriority") {
          errors.push_back(
              notSupported("spec.preemption.withinQueue", *within, {"LowerPriority", "Never"}));
        }
      }
      q.spec.preemption.reclaim =
          f.boolean(*p, "reclaim", "spec.preemption.reclaim").value_or(true);
      q.spec.preemption.min_runtime_seconds =
          f.int32(*p, "minRuntimeSeconds", "spec.preemption.minRuntimeSeconds").value_or(0);
    }
    if (const json* fung = f.object(*spec, "gpuTypeFungibility", "spec.gpuTypeFungibility")) {
      auto& out = q.spec.gpu_type_fungibility;
      const std::string borrow_path = "spec.gpuTypeFungibility.whenCanBorrow";
      if (auto v = f.string(*fung, "whenCanBorrow", borrow_path)) {
        if (*v == "TryNextType") {
          out.when_can_borrow = WhenCanBorrow::TryNextType;
        } else if (*v != "Borrow") {
          errors.push_back(notSupported(borrow_path, *v, {"Borrow", "TryNextType"}));
        }
      }
      const std::string preempt_path = "spec.gpuTypeFungibility.whenCanPreempt";
      if (auto v = f.string(*fung, "whenCanPreempt", preempt_path)) {
        if (*v == "Preempt") {
          out.when_can_preempt = WhenCanPreempt::Preempt;
        } else if (*v != "TryNextType") {
          errors.push_back(notSupported(preempt_path, *v, {"Preempt", "TryNextType"}));
        }
      }
    }
    if (JsonFields::find(*spec, "namespaces") != nullptr)
      q.spec.namespaces = f.stringList(*spec, "namespaces", "spec.namespaces");
    if (const json* selector = f.object(*spec, "namespaceSelector", "spec.namespaceSelector"))
      q.spec.namespace_selector =
          LabelSelector::fromJson(*selector, "spec.namespaceSelector", errors);
  }
  if (const json* status = f.object(object, "status", "status")) {
    q.status.observed_generation =
        f.int64(*status, "observedGeneration", "status.observedGeneration").value_or(0);
    q.status.allocated = f.resourceMap(*status, "allocated", "status.allocated", kIntOrString);
    q.status.fair_share = f.resourceMap(*status, "fairShare", "status.fairShare", kIntOrString);
    q.status.pending = f.int32(*status, "pending", "status.pending").value_or(0);
    q.status.admitted = f.int32(*status, "admitted", "status.admitted").value_or(0);
    q.status.running = f.int32(*status, "running", "status.running").value_or(0);
    q.status.conditions = Condition::listFromJson(*status, "status.conditions", errors);
  }
  return q;
}

json Queue::toJson() const {
  json spec_json = json::object();
  if (!spec.parent.empty()) spec_json["parent"] = spec.parent;
  if (!spec.resources.empty()) {
    json resources = json::object();
    for (const auto& [name, quota] : spec.resources) {
      json entry = json::object();
      if (quota.guaranteed) entry["guaranteed"] = quota.guaranteed->toString();
      if (quota.limit) entry["limit"] = quota.limit->toString();
      if (quota.over_quota_weight) entry["overQuotaWeight"] = quota.over_quota_weight->toString();
      if (quota.lending_limit) entry["lendingLimit"] = quota.lending_limit->toString();
      if (!quota.gpu_types.empty()) {
        json types = json::array();
        for (const auto& type : quota.gpu_types) {
          json t = {{"name", type.name}};
          if (type.guaranteed) t["guaranteed"] = type.guaranteed->toString();
          if (type.limit) t["limit"] = type.limit->toString();
          if (type.lending_limit) t["lendingLimit"] = type.lending_limit->toString();
          types.push_back(std::move(t));
        }
        entry["gpuTypes"] = std::move(types);
      }
      resources[name] = std::move(entry);
    }
    spec_json["resources"] = std::move(resources);
  }
  spec_json["priority"] = spec.priority;
  if (spec.max_wait_seconds) spec_json["maxWaitSeconds"] = *spec.max_wait_seconds;
  spec_json["preemption"] = {{"withinQueue", toString(spec.preemption.within_queue)},
                             {"reclaim", spec.preemption.reclaim},
                             {"minRuntimeSeconds", spec.preemption.min_runtime_seconds}};
  spec_json["gpuTypeFungibility"] = {
      {"whenCanBorrow", toString(spec.gpu_type_fungibility.when_can_borrow)},
      {"whenCanPreempt", toString(spec.gpu_type_fungibility.when_can_preempt)}};
  if (spec.namespaces) spec_json["namespaces"] = *spec.namespaces;
  if (spec.namespace_selector) spec_json["namespaceSelector"] = spec.namespace_selector->toJson();
  json status_json = json::object();
  if (status.observed_generation != 0)
    status_json["observedGeneration"] = status.observed_generation;
  if (!status.allocated.empty()) status_json["allocated"] = resourcesToJson(status.allocated);
  if (!status.fair_share.empty()) status_json["fairShare"] = resourcesToJson(status.fair_share);
  status_json["pending"] = status.pending;
  status_json["admitted"] = status.admitted;
  status_json["running"] = status.running;
  if (!status.conditions.empty()) status_json["conditions"] = conditionsToJson(status.conditions);
  return {{"apiVersion", kApiVersion},
          {"kind", kQueueKind},
          {"metadata", metadata.toJson()},
          {"spec", std::move(spec_json)},
          {"status", std::move(status_json)}};
}

namespace {

// The rules every quota keeps, of a resource or of a GPU type, at `p`.
void validateQuota(const std::string& p, const std::optional<Quantity>& guaranteed,
                   const std::optional<Quantity>& limit,
                   const std::optional<Quantity>& lending_limit, std::vector<Error>& errors) {
  auto nonNegative = [&](const std::optional<Quantity>& q, const char* field) {
    if (q && q->isNegative())
      errors.push_back(
          invalid(p + "." + field, q->toString(), "must be greater than or equal to 0"));
  };
  nonNegative(guaranteed, "guaranteed");
  nonNegative(limit, "limit");
  nonNegative(lending_limit, "lendingLimit");
  if (limit && guaranteed && *guaranteed > *limit) {
    errors.push_back(
        invalid(p + ".guaranteed", guaranteed->toString(),
                fmt::format("must be less than or equal to limit ({})", limit->toString())));
  }
  const Quantity guaranteed_or_zero = guaranteed.value_or(Quantity());
  if (lending_limit && *lending_limit > guaranteed_or_zero) {
    errors.push_back(invalid(p + ".lendingLimit", lending_limit->toString(),
                             fmt::format("must be less than or equal to guaranteed ({})",
                                         guaranteed_or_zero.toString())));
  }
}

}  // namespace

std::vector<Error> Queue::validate() const {
  std::vector<Error> errors;
  validateObjectMeta(metadata, /*namespaced=*/false, errors);
  if (!spec.parent.empty()) {
    if (auto why = checkDnsSubdomain(spec.parent)) {
      errors.push_back(invalid("spec.parent", spec.parent, *why));
    } else if (spec.parent == metadata.name) {
      errors.push_back(invalid("spec.parent", spec.parent, "a queue cannot be its own parent"));
    }
  }
  for (const auto& [name, quota] : spec.resources) {
    std::string p = keyPath("spec.resources", name);
    if (auto why = checkQualifiedName(name)) {
      errors.push_back(invalid("spec.resources", name, *why));
    } else if (name.starts_with(std::string(kGpuTypeResourcePrefix) + "/")) {
      errors.push_back(invalid("spec.resources", name,
                               fmt::format("a GPU type's quota is set in {}.gpuTypes",
                                           keyPath("spec.resources", kGpuResource))));
    }
    validateQuota(p, quota.guaranteed, quota.limit, quota.lending_limit, errors);
    if (quota.over_quota_weight && quota.over_quota_weight->isNegative())
      errors.push_back(invalid(p + ".overQuotaWeight", quota.over_quota_weight->toString(),
                               "must be greater than or equal to 0"));
    if (!quota.gpu_types.empty() && name != kGpuResource)
      errors.push_back(
          forbidden(p + ".gpuTypes", fmt::format("only {} has GPU types", kGpuResource)));
    if (quota.gpu_types.size() > kMaxAcceptedGpuTypes)
      errors.push_back(tooMany(p + ".gpuTypes", static_cast<int64_t>(quota.gpu_types.size()),
                               static_cast<int64_t>(kMaxAcceptedGpuTypes)));
    Quantity typed_guarantees;
    for (size_t i = 0; i < quota.gpu_types.size(); ++i) {
      const GpuTypeQuota& type = quota.gpu_types[i];
      std::string tp = indexPath(p + ".gpuTypes", i);
      if (auto why = checkGpuTypeName(type.name))
        errors.push_back(invalid(tp + ".name", type.name, *why));
      for (size_t j = 0; j < i; ++j)
        if (quota.gpu_types[j].name == type.name) {
          errors.push_back(duplicate(tp, json{{"name", type.name}}));
          break;
        }
      validateQuota(tp, type.guaranteed, type.limit, type.lending_limit, errors);
      if (type.guaranteed && !type.guaranteed->isNegative())
        if (auto sum = typed_guarantees.plus(*type.guaranteed)) typed_guarantees = *sum;
    }
    if (!typed_guarantees.isZero() && typed_guarantees > quota.guaranteedOrZero())
      errors.push_back(
          invalid(p + ".guaranteed", quota.guaranteedOrZero().toString(),
                  fmt::format("must be at least the sum of its GPU types' guarantees ({})",
                              typed_guarantees.toString())));
  }
  if (spec.resources.size() > 64)
    errors.push_back(tooMany("spec.resources", static_cast<int64_t>(spec.resources.size()), 64));
  if (spec.max_wait_seconds && *spec.max_wait_seconds < 0)
    errors.push_back(invalid("spec.maxWaitSeconds", *spec.max_wait_seconds,
                             "must be greater than or equal to 0"));
  if (spec.preemption.min_runtime_seconds < 0)
    errors.push_back(invalid("spec.preemption.minRuntimeSeconds",
                             spec.preemption.min_runtime_seconds,
                             "must be greater than or equal to 0"));
  if (spec.namespaces) {
    for (size_t i = 0; i < spec.namespaces->size(); ++i) {
      const std::string& ns = (*spec.namespaces)[i];
      if (auto why = checkDnsLabel(ns))
        errors.push_back(invalid(indexPath("spec.namespaces", i), ns, *why));
      for (size_t j = 0; j < i; ++j)
        if ((*spec.namespaces)[j] == ns) {
          errors.push_back(duplicate(indexPath("spec.namespaces", i), ns));
          break;
        }
    }
  }
  if (spec.namespace_selector) spec.namespace_selector->validate("spec.namespaceSelector", errors);
  validateConditions(status.conditions, "status.conditions", errors);
  return errors;
}

std::vector<Error> Queue::validateUpdate(const Queue& old) const {
  std::vector<Error> errors = validate();
  if (metadata.name != old.metadata.name)
    errors.push_back(invalid("metadata.name", metadata.name, "field is immutable"));
  return errors;
}

}  // namespace troupe::api
