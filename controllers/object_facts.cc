#include "controllers/object_facts.h"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>

#include "api/field_error.h"
#include "api/gpu_fraction.h"
#include "api/gpu_topology.h"
#include "api/well_known.h"
#include "controllers/annotations.h"
#include "controllers/gpu_indices.h"
#include "controllers/gpu_milli.h"
#include "controllers/lone_pod.h"
#include "controllers/object_json.h"
#include "controllers/resources.h"

namespace troupe::controllers {

using Json = nlohmann::json;

namespace {

std::optional<queueing::TaintEffect> parseEffect(const std::string& effect) {
  if (effect == "NoSchedule") return queueing::TaintEffect::NoSchedule;
  if (effect == "PreferNoSchedule") return queueing::TaintEffect::PreferNoSchedule;
  if (effect == "NoExecute") return queueing::TaintEffect::NoExecute;
  return std::nullopt;
}

const Json& field(const Json& object, std::string_view name) {
  static const Json kNull;
  if (!object.is_object()) return kNull;
  auto it = object.find(name);
  return it == object.end() ? kNull : *it;
}

std::string stringField(const Json& object, std::string_view name) {
  const Json& v = field(object, name);
  return v.is_string() ? v.get<std::string>() : std::string();
}

// The pod's constraints and a key built from its requests by name and the constraint
// fields as the API gave them: equal shapes give equal keys in any cycle.
Result<PodShapeFacts> readShape(const Json& spec,
                                const std::vector<std::pair<std::string, std::int64_t>>& requests) {
  PodShapeFacts out;
  Json key_parts = Json::array();
  auto sorted = requests;
  std::sort(sorted.begin(), sorted.end());
  for (const auto& [name, value] : sorted)
    if (value != 0) key_parts.push_back(Json::array({name, value}));
  const Json& selector = field(spec, "nodeSelector");
  if (selector.is_object()) {
    for (const auto& [k, v] : selector.items())
      if (v.is_string()) out.shape.node_selector.emplace_back(k, v.get<std::string>());
    std::sort(out.shape.node_selector.begin(), out.shape.node_selector.end());
  }
  key_parts.push_back(selector.is_null() ? Json::object() : selector);
  const Json& terms = field(field(field(field(spec, "affinity"), "nodeAffinity"),
                                  "requiredDuringSchedulingIgnoredDuringExecution"),
                            "nodeSelectorTerms");
  if (terms.is_array() && !terms.empty()) {
    if (terms.size() > 1) {
      return makeError(ErrorCode::Invalid,
                       "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
                       "nodeSelectorTerms",
                       "Troupe supports one node selector term per pod");
    }
    for (const auto& e : terms[0].value("matchExpressions", Json::array())) {
      queueing::SelectorRequirement r;
      r.key = e.value("key", "");
      auto op = e.value("operator", "");
      if (op == "In")
        r.op = queueing::SelectorOperator::In;
      else if (op == "NotIn")
        r.op = queueing::SelectorOperator::NotIn;
      else if (op == "Exists")
        r.op = queueing::SelectorOperator::Exists;
      else if (op == "DoesNotExist")
        r.op = queueing::SelectorOperator::DoesNotExist;
      else
        return makeError(ErrorCode::Invalid, "spec.affinity.nodeAffinity",
                         fmt::format("Unsupported value: \"{}\": supported values: \"In\", "
                                     "\"NotIn\", \"Exists\", \"DoesNotExist\"",
                                     op));
      r.values = e.value("values", std::vector<std::string>{});
      out.shape.affinity.push_back(std::move(r));
    }
    key_parts.push_back(terms);
  }
  const Json& tolerations = field(spec, "tolerations");
  if (tolerations.is_array()) {
    for (const auto& t : tolerations) {
      queueing::Toleration tol;
      tol.key = t.value("key", "");
      tol.op = t.value("operator", "Equal") == "Exists" ? queueing::TolerationOperator::Exists
                                                        : queueing::TolerationOperator::Equal;
      tol.value = t.value("value", "");
      tol.effect = parseEffect(t.value("effect", ""));
      out.shape.tolerations.push_back(std::move(tol));
    }
  }
  key_parts.push_back(tolerations.is_array() ? tolerations : Json::array());
  out.key = key_parts.dump();
  return out;
}

// Amounts parsed against a table of the object's own: its slots come in the order the
// object names its resources, which NamedAmounts::in() then replays against a cycle's.
template <class Parse>
NamedAmounts named(Parse parse) {
  NamedAmounts out;
  queueing::ResourceNames own;
  auto parsed = parse(own);
  if (!parsed) {
    out.error = parsed.error();
    return out;
  }
  for (std::size_t slot = 0; slot < own.size(); ++slot)
    if ((*parsed)[slot] != 0 || slot >= queueing::kFirstExtended)
      out.amounts.emplace_back(own.name(slot), (*parsed)[slot]);
  return out;
}

}  // namespace

Result<queueing::ResourceVector> NamedAmounts::in(queueing::ResourceNames& names) const {
  if (error) return *error;
  queueing::ResourceVector out;
  for (const auto& [name, value] : amounts) {
    const auto slot = names.slotFor(name);
    if (slot == queueing::kMaxResources) {
      return makeError(
          ErrorCode::Invalid, fmt::format("resources[{}]", name),
          fmt::format("Troupe tracks at most {} resource names", queueing::kMaxResources));
    }
    out[slot] = value;
  }
  return out;
}

PodFacts readPodFacts(const Json& pod) {
  PodFacts out;
  const Json& metadata = field(pod, "metadata");
  const Json& spec = field(pod, "spec");
  const Json& status = field(pod, "status");
  out.ns = stringField(metadata, "namespace");
  out.name = stringField(metadata, "name");
  out.key = out.ns + "/" + out.name;
  out.uid = stringField(metadata, "uid");
  out.deleting = !field(metadata, "deletionTimestamp").is_null();
  out.node = stringField(spec, "nodeName");
  out.troupe = stringField(spec, "schedulerName") == api::kSchedulerName;
  const auto phase = stringField(status, "phase");
  out.terminated = phase == "Succeeded" || phase == "Failed";
  const Json& labels = field(metadata, "labels");
  if (out.troupe) {
    // The group it names, or its own (controllers/lone_pod.h).
    const auto group = stringField(labels, api::kPodGroupLabel);
    if (!group.empty())
      out.group = out.ns + "/" + group;
    else if (!out.uid.empty()) {
      out.group = out.ns + "/" + lonePodGroupName(out.uid);
      out.lone = true;
    }
  }
  const auto index = stringField(labels, api::kReplicaIndexLabel);
  out.replica_index = index.empty() ? -1 : std::atoi(index.c_str());
  out.gpus =
      parseGpuIndices(stringField(field(metadata, "annotations"), api::kGpuIndicesAnnotation));
  out.start_time = parseTimestamp(stringField(status, "startTime"));
  if (const Json& p = field(spec, "priority"); p.is_number_integer())
    out.priority = p.get<std::int32_t>();
  out.priority_class = stringField(spec, "priorityClassName");

  out.requests = named([&](queueing::ResourceNames& own) { return podRequests(pod, own); });
  // A fraction of one GPU: counted in thousandths beside whole GPUs (gpu_milli.h).
  std::int32_t fraction = 0;
  const std::string fraction_text =
      stringField(field(metadata, "annotations"), api::kGpuFractionAnnotation);
  if (!fraction_text.empty()) {
    auto parsed = api::parseGpuFraction(
        fraction_text, api::keyPath("metadata.annotations", api::kGpuFractionAnnotation));
    if (!parsed) {
      out.shape_error = parsed.error();
      return out;
    }
    fraction = *parsed;
  }
  addGpuMilli(out.requests, fraction);
  auto shape = readShape(spec, out.requests.amounts);
  if (!shape) {
    out.shape_error = shape.error();
  } else {
    shape->shape.gpu_milli = fraction;
    out.shape = std::make_shared<const PodShapeFacts>(std::move(*shape));
  }
  return out;
}

NodeFacts readNodeFacts(const Json& node) {
  NodeFacts out;
  const Json& metadata = field(node, "metadata");
  const Json& spec = field(node, "spec");
  const Json& status = field(node, "status");
  out.spec.name = stringField(metadata, "name");
  const Json& labels = field(metadata, "labels");
  if (labels.is_object()) {
    for (const auto& [k, v] : labels.items())
      if (v.is_string()) out.spec.labels.emplace_back(k, v.get<std::string>());
    std::sort(out.spec.labels.begin(), out.spec.labels.end());
  }
  out.allocatable = named([&](queueing::ResourceNames& own) {
    return toResourceVector(field(status, "allocatable"), own, "status.allocatable");
  });
  addGpuMilli(out.allocatable, 0);
  const Json& unschedulable = field(spec, "unschedulable");
  out.spec.unschedulable = unschedulable.is_boolean() && unschedulable.get<bool>();
  out.spec.ready = false;
  const Json& conditions = field(status, "conditions");
  if (conditions.is_array()) {
    for (const auto& c : conditions)
      if (c.value("type", "") == "Ready") out.spec.ready = c.value("status", "") == "True";
  }
  const Json& taints = field(spec, "taints");
  if (taints.is_array()) {
    for (const auto& t : taints) {
      auto effect = parseEffect(t.value("effect", ""));
      if (!effect) continue;
      out.spec.taints.push_back({t.value("key", ""), t.value("value", ""), *effect});
    }
  }
  const auto topology = stringField(field(metadata, "annotations"), api::kGpuTopologyAnnotation);
  if (!topology.empty()) {
    auto parsed = api::parseGpuTopology(
        topology, fmt::format("metadata.annotations[{}]", api::kGpuTopologyAnnotation));
    if (!parsed) {
      out.error = parsed.error();
    } else {
      out.spec.nvlink_islands = parsed->nvlink_islands;
      out.spec.numa_nodes = parsed->numa;
    }
  }
  return out;
}

PodGroupFacts readPodGroupFacts(const Json& group) {
  PodGroupFacts out;
  const Json& metadata = field(group, "metadata");
  const Json& spec = field(group, "spec");
  const Json& annotations = field(metadata, "annotations");
  out.key = keyOf(group);
  out.queue = stringField(spec, "queue");
  const Json& min_member = field(spec, "minMember");
  out.min_member = static_cast<std::int32_t>(std::max<std::int64_t>(
      1, min_member.is_number_integer() ? min_member.get<std::int64_t>() : 1));
  const auto phase = stringField(field(group, "status"), "phase");
  out.finished = phase == "Succeeded" || phase == "Failed";
  out.priority_class = stringField(spec, "priorityClassName");
  const auto submitted = stringField(annotations, kSubmittedAtAnnotation);
  out.submit_time = !submitted.empty() ? std::optional<std::int64_t>(std::atoll(submitted.c_str()))
                                       : parseTimestamp(stringField(metadata, "creationTimestamp"));
  out.preemptible = stringField(annotations, kPreemptibleAnnotation) != "false";
  out.topology_level = stringField(annotations, kTopologyLevelAnnotation);
  out.topology_required = stringField(annotations, kTopologyModeAnnotation) == "Required";
  const auto estimate = stringField(annotations, kRuntimeEstimateAnnotation);
  if (!estimate.empty()) out.runtime_estimate = std::atoll(estimate.c_str());
  if (const Json& types = field(spec, "gpuTypes"); types.is_array())
    for (const auto& t : types)
      if (t.is_string()) out.gpu_types.push_back(t.get<std::string>());
  return out;
}

}  // namespace troupe::controllers
