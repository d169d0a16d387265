#include "api/core/pod.h"

#include <fmt/format.h>

#include "api/field_error.h"
#include "api/gpu_fraction.h"
#include "api/json_fields.h"
#include "api/names.h"

namespace troupe::api::core {

using nlohmann::json;

namespace {

std::vector<Container> containersFromJson(const json& spec, const char* key,
                                          const std::string& path, JsonFields& f) {
  std::vector<Container> out;
  const json* list = f.array(spec, key, path);
  if (list == nullptr) return out;
  for (size_t i = 0; i < list->size(); ++i) {
    const json& c = (*list)[i];
    std::string p = indexPath(path, i);
    if (!c.is_object()) {
      f.typeError(p, c, "object");
      continue;
    }
    Container container;
    container.name = f.string(c, "name", p + ".name").value_or("");
    container.image = f.string(c, "image", p + ".image").value_or("");
    if (const json* res = f.object(c, "resources", p + ".resources")) {
      container.requests = f.resourceMap(*res, "requests", p + ".resources.requests");
      container.limits = f.resourceMap(*res, "limits", p + ".resources.limits");
    }
    out.push_back(std::move(container));
  }
  return out;
}

std::vector<NodeSelectorRequirement> requirementsFromJson(const json& term, const char* key,
                                                          const std::string& path, JsonFields& f) {
  std::vector<NodeSelectorRequirement> out;
  const json* list = f.array(term, key, path);
  if (list == nullptr) return out;
  for (size_t i = 0; i < list->size(); ++i) {
    const json& r = (*list)[i];
    std::string p = indexPath(path, i);
    if (!r.is_object()) {
      f.typeError(p, r, "object");
      continue;
    }
    NodeSelectorRequirement req;
    req.key = f.string(r, "key", p + ".key").value_or("");
    req.operator_ = f.string(r, "operator", p + ".operator").value_or("");
    req.values = f.stringList(r, "values", p + ".values");
    out.push_back(std::move(req));
  }
  return out;
}

bool parseInt(const std::string& s, int64_t* out) {
  try {
    size_t used = 0;
    long long v = std::stoll(s, &used);
    if (used != s.size()) return false;
    *out = v;
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace

bool Toleration::tolerates(const Taint& taint) const {
  if (!effect.empty() && effect != taint.effect) return false;
  if (!key.empty() && key != taint.key) return false;
  if (operator_ == "Exists") return true;
  if (operator_ == "Equal" || operator_.empty()) return value == taint.value;
  return false;
}

bool NodeSelectorRequirement::matches(const std::map<std::string, std::string>& labels) const {
  auto it = labels.find(key);
  bool has = it != labels.end();
  if (operator_ == "In") {
    return has && std::find(values.begin(), values.end(), it->second) != values.end();
  }
  if (operator_ == "NotIn") {
    return !has || std::find(values.begin(), values.end(), it->second) == values.end();
  }
  if (operator_ == "Exists") return has;
  if (operator_ == "DoesNotExist") return !has;
  if (operator_ == "Gt" || operator_ == "Lt") {
    int64_t label = 0, bound = 0;
    if (!has || values.size() != 1 || !parseInt(it->second, &label) || !parseInt(values[0], &bound))
      return false;
    return operator_ == "Gt" ? label > bound : label < bound;
  }
  return false;
}

bool NodeSelectorTerm::matches(const std::map<std::string, std::string>& labels,
                               const std::string& node_name) const {
  if (match_expressions.empty() && match_fields.empty())
    return false;  // an empty term matches nothing
  for (const auto& r : match_expressions)
    if (!r.matches(labels)) return false;
  for (const auto& r : match_fields) {
    std::map<std::string, std::string> fields = {{"metadata.name", node_name}};
    if (!r.matches(fields)) return false;
  }
  return true;
}

PodSpec PodSpec::fromJson(const json& spec, const std::string& path, std::vector<Error>& errors) {
  JsonFields f(errors);
  PodSpec out;
  if (!spec.is_object()) {
    if (!spec.is_null()) f.typeError(path, spec, "object");
    return out;
  }
  out.containers = containersFromJson(spec, "containers", path + ".containers", f);
  out.init_containers = containersFromJson(spec, "initContainers", path + ".initContainers", f);
  out.overhead = f.resourceMap(spec, "overhead", path + ".overhead");
  out.node_selector = f.stringMap(spec, "nodeSelector", path + ".nodeSelector");
  out.scheduler_name = f.string(spec, "schedulerName", path + ".schedulerName").value_or("");
  out.node_name = f.string(spec, "nodeName", path + ".nodeName").value_or("");
  out.priority_class_name =
      f.string(spec, "priorityClassName", path + ".priorityClassName").value_or("");
  out.priority = f.int32(spec, "priority", path + ".priority");
  out.restart_policy = f.string(spec, "restartPolicy", path + ".restartPolicy").value_or("");
  out.tolerations = tolerationsFromJson(spec, path + ".tolerations", errors);
  std::string affinity_path = path + ".affinity.nodeAffinity";
  if (const json* affinity = f.object(spec, "affinity", path + ".affinity")) {
    if (const json* node = f.object(*affinity, "nodeAffinity", affinity_path)) {
      std::string req_path = affinity_path + ".requiredDuringSchedulingIgnoredDuringExecution";
      if (const json* req =
              f.object(*node, "requiredDuringSchedulingIgnoredDuringExecution", req_path)) {
        if (const json* terms =
                f.array(*req, "nodeSelectorTerms", req_path + ".nodeSelectorTerms")) {
          for (size_t i = 0; i < terms->size(); ++i) {
            std::string p = indexPath(req_path + ".nodeSelectorTerms", i);
            const json& t = (*terms)[i];
            if (!t.is_object()) {
              f.typeError(p, t, "object");
              continue;
            }
            NodeSelectorTerm term;
            term.match_expressions =
                requirementsFromJson(t, "matchExpressions", p + ".matchExpressions", f);
            term.match_fields = requirementsFromJson(t, "matchFields", p + ".matchFields", f);
            out.required_node_affinity.push_back(std::move(term));
          }
        }
      }
    }
  }
  return out;
}

namespace {

Result<ResourceList> containerRequests(const Container& c) {
  ResourceList out = c.requests;
  for (const auto& [name, q] : c.limits)
    out.emplace(name, q);  // limit stands in for a missing request
  return out;
}

}  // namespace

Result<ResourceList> PodSpec::requests() const {
  ResourceList sum;
  for (const auto& c : containers) {
    auto r = containerRequests(c);
    if (!r) return r;
    auto s = addResources(sum, *r);
    if (!s) return s;
    sum = std::move(*s);
  }
  for (const auto& c : init_containers) {
    auto r = containerRequests(c);
    if (!r) return r;
    sum = maxResources(sum, *r);
  }
  return addResources(sum, overhead);
}

Result<ResourceList> PodSpec::limits() const {
  ResourceList sum;
  for (const auto& c : containers) {
    auto s = addResources(sum, c.limits);
    if (!s) return s;
    sum = std::move(*s);
  }
  return sum;
}

bool PodSpec::fitsNode(const std::map<std::string, std::string>& labels,
                       const std::string& node_name, const std::vector<Taint>& taints) const {
  for (const auto& [key, value] : node_selector) {
    auto it = labels.find(key);
    if (it == labels.end() || it->second != value) return false;
  }
  if (!required_node_affinity.empty()) {
    bool any = false;
    for (const auto& term : required_node_affinity) any |= term.matches(labels, node_name);
    if (!any) return false;
  }
  for (const auto& taint : taints) {
    if (taint.effect != "NoSchedule" && taint.effect != "NoExecute") continue;
    bool tolerated = false;
    for (const auto& tol : tolerations) tolerated |= tol.tolerates(taint);
    if (!tolerated) return false;
  }
  return true;
}

namespace {

// Kubernetes' resource name helpers (pkg/apis/core/helper), for container resources.
bool isNativeResource(const std::string& name) {
  return name.find('/') == std::string::npos || name.find("kubernetes.io/") != std::string::npos;
}
bool isHugePages(const std::string& name) { return name.rfind("hugepages-", 0) == 0; }
bool isExtendedResource(const std::string& name) {
  if (isNativeResource(name) || name.rfind("requests.", 0) == 0) return false;
  return !checkQualifiedName("requests." + name).has_value();
}
// Native resources other than hugepages may ask for less than their limit.
bool overcommitAllowed(const std::string& name) {
  return isNativeResource(name) && !isHugePages(name);
}
bool isStandardContainerResource(const std::string& name) {
  return name == "cpu" || name == "memory" || name == "ephemeral-storage" || isHugePages(name);
}
bool isStandardResource(const std::string& name) {
  static const char* const kStandard[] = {"cpu",
                                          "memory",
                                          "ephemeral-storage",
                                          "requests.cpu",
                                          "requests.memory",
                                          "requests.ephemeral-storage",
                                          "limits.cpu",
                                          "limits.memory",
                                          "limits.ephemeral-storage",
                                          "pods",
                                          "services",
                                          "replicationcontrollers",
                                          "resourcequotas",
                                          "secrets",
                                          "configmaps",
                                          "persistentvolumeclaims",
                                          "storage",
                                          "requests.storage",
                                          "services.nodeports",
                                          "services.loadbalancers"};
  for (const char* s : kStandard)
    if (name == s) return true;
  return isHugePages(name) || name.rfind("requests.hugepages-", 0) == 0;
}

// validateContainerResourceName: a qualified name; without a prefix, a standard resource of
// containers; with one, a native or extended resource.
void validateContainerResourceName(const std::string& name, const std::string& path,
                                   std::vector<Error>& errors) {
  const bool prefixed = name.find('/') != std::string::npos;
  if (auto why = checkQualifiedName(name)) {
    errors.push_back(invalid(path, name, *why));
  } else if (!prefixed && !isStandardResource(name)) {
    errors.push_back(invalid(path, name, "must be a standard resource type or fully qualified"));
  }
  if (!prefixed) {
    if (!isStandardContainerResource(name))
      errors.push_back(invalid(path, name, "must be a standard resource for containers"));
  } else if (!isNativeResource(name) && !isExtendedResource(name)) {
    errors.push_back(invalid(path, name, "doesn't follow extended resource name standard"));
  }
}

void validateResourceQuantity(const std::string& name, const Quantity& q, const std::string& path,
                              std::vector<Error>& errors) {
  if (q.isNegative())
    errors.push_back(invalid(path, q.toString(), "must be greater than or equal to 0"));
  if (isExtendedResource(name) && q.milliValue() % 1000 != 0)
    errors.push_back(invalid(path, q.toString(), "must be an integer"));
}

// ValidateResourceRequirements: limits, then requests, each within its limit, and an
// extended resource (a GPU) requested exactly at its limit.
void validateResources(const Container& c, const std::string& path, std::vector<Error>& errors) {
  const std::string limits_path = path + ".limits";
  const std::string requests_path = path + ".requests";
  for (const auto& [name, q] : c.limits) {
    std::string p = keyPath(limits_path, name);
    validateContainerResourceName(name, p, errors);
    validateResourceQuantity(name, q, p, errors);
  }
  for (const auto& [name, request] : c.requests) {
    std::string p = keyPath(requests_path, name);
    validateContainerResourceName(name, p, errors);
    validateResourceQuantity(name, request, p, errors);
    auto limit = c.limits.find(name);
    if (limit != c.limits.end()) {
      if (request != limit->second && !overcommitAllowed(name)) {
        errors.push_back(invalid(
            requests_path, request.toString(),
            fmt::format("must be equal to {} limit of {}", name, limit->second.toString())));
      } else if (request > limit->second) {
        errors.push_back(invalid(requests_path, request.toString(),
                                 fmt::format("must be less than or equal to {} limit of {}", name,
                                             limit->second.toString())));
      }
    } else if (!overcommitAllowed(name)) {
      errors.push_back(required(limits_path, "Limit must be set for non overcommitable resources"));
    }
  }
}

}  // namespace

std::vector<Toleration> tolerationsFromJson(const json& parent, const std::string& path,
                                            std::vector<Error>& errors) {
  JsonFields f(errors);
  std::vector<Toleration> out;
  const json* tols = f.array(parent, "tolerations", path);
  if (tols == nullptr) return out;
  for (size_t i = 0; i < tols->size(); ++i) {
    const json& t = (*tols)[i];
    std::string p = indexPath(path, i);
    if (!t.is_object()) {
      f.typeError(p, t, "object");
      continue;
    }
    Toleration tol;
    tol.key = f.string(t, "key", p + ".key").value_or("");
    tol.operator_ = f.string(t, "operator", p + ".operator").value_or("Equal");
    tol.value = f.string(t, "value", p + ".value").value_or("");
    tol.effect = f.string(t, "effect", p + ".effect").value_or("");
    tol.toleration_seconds = f.int64(t, "tolerationSeconds", p + ".tolerationSeconds");
    out.push_back(std::move(tol));
  }
  return out;
}

json tolerationToJson(const Toleration& t) {
  json out = json::object();
  if (!t.key.empty()) out["key"] = t.key;
  out["operator"] = t.operator_;
  if (!t.value.empty()) out["value"] = t.value;
  if (!t.effect.empty()) out["effect"] = t.effect;
  if (t.toleration_seconds) out["tolerationSeconds"] = *t.toleration_seconds;
  return out;
}

void validateTolerations(const std::vector<Toleration>& tolerations, const std::string& path,
                         std::vector<Error>& errors) {
  for (size_t i = 0; i < tolerations.size(); ++i) {
    const auto& t = tolerations[i];
    std::string p = indexPath(path, i);
    if (t.operator_ != "Equal" && t.operator_ != "Exists")
      errors.push_back(notSupported(p + ".operator", t.operator_, {"Equal", "Exists"}));
    if (!t.effect.empty() && t.effect != "NoSchedule" && t.effect != "PreferNoSchedule" &&
        t.effect != "NoExecute")
      errors.push_back(
          notSupported(p + ".effect", t.effect, {"NoSchedule", "PreferNoSchedule", "NoExecute"}));
  }
}

void validatePodSpec(const PodSpec& spec, const std::string& path, std::vector<Error>& errors) {
  if (spec.containers.empty()) errors.push_back(required(path + ".containers"));
  auto check = [&](const std::vector<Container>& list, const std::string& list_path) {
    for (size_t i = 0; i < list.size(); ++i) {
      const auto& c = list[i];
      std::string p = indexPath(list_path, i);
      if (c.name.empty()) {
        errors.push_back(required(p + ".name"));
      } else if (auto why = checkDnsLabel(c.name)) {
        errors.push_back(invalid(p + ".name", c.name, *why));
      }
      if (c.image.empty()) errors.push_back(required(p + ".image"));
      validateResources(c, p + ".resources", errors);
    }
  };
  check(spec.containers, path + ".containers");
  check(spec.init_containers, path + ".initContainers");
  for (const auto& [name, q] : spec.overhead) {
    std::string p = keyPath(path + ".overhead", name);
    if (auto why = checkQualifiedName(name)) errors.push_back(invalid(p, name, *why));
    if (q.isNegative())
      errors.push_back(invalid(p, q.toString(), "must be greater than or equal to 0"));
  }
  validateTolerations(spec.tolerations, path + ".tolerations", errors);
}

Pod Pod::fromJson(const json& pod, std::vector<Error>& errors) {
  JsonFields f(errors);
  Pod out;
  if (!pod.is_object()) {
    f.typeError("<nil>", pod, "object");
    return out;
  }
  out.metadata = ObjectMeta::fromJson(pod.value("metadata", json()), errors);
  out.spec = PodSpec::fromJson(pod.value("spec", json()), "spec", errors);
  if (const json* status = f.object(pod, "status", "status")) {
    out.phase = f.string(*status, "phase", "status.phase").value_or("");
    out.start_time = f.string(*status, "startTime", "status.startTime").value_or("");
    out.conditions = Condition::listFromJson(*status, "status.conditions", errors);
  }
  return out;
}

std::vector<Error> Pod::validate() const {
  std::vector<Error> errors;
  validateObjectMeta(metadata, /*namespaced=*/true, errors);
  validatePodSpec(spec, "spec", errors);
  validateGpuFraction(metadata.annotations, spec, "metadata", "spec", errors);
  return errors;
}

bool Pod::isReady() const {
  const Condition* ready = findCondition(conditions, "Ready");
  return ready != nullptr && ready->status == "True";
}

}  // namespace troupe::api::core
