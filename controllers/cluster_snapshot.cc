#include "controllers/cluster_snapshot.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <set>
#include <sstream>

#include "api/gpu_topology.h"
#include "api/quantity.h"
#include "api/well_known.h"
#include "controllers/annotations.h"
#include "controllers/object_json.h"
#include "controllers/queue_tree.h"
#include "controllers/resources.h"

namespace troupe::controllers {

using queueing::ResourceVector;
using Json = nlohmann::json;

namespace {

bool isTerminated(const Json& pod) {
  auto phase = stringAt(pod, "/status/phase");
  return phase == "Succeeded" || phase == "Failed";
}

bool isTroupePod(const Json& pod) {
  return stringAt(pod, "/spec/schedulerName") == api::kSchedulerName;
}

queueing::Labels labelsOf(const Json& object, std::string_view pointer) {
  queueing::Labels out;
  auto it = object.find("metadata");
  const Json* map = nullptr;
  if (pointer == "/metadata/labels") {
    if (it != object.end() && it->contains("labels")) map = &(*it)["labels"];
  } else if (object.contains("spec") && object["spec"].contains("nodeSelector")) {
    map = &object["spec"]["nodeSelector"];
  }
  if (!map || !map->is_object()) return out;
  for (const auto& [k, v] : map->items())
    if (v.is_string()) out.emplace_back(k, v.get<std::string>());
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<queueing::TaintEffect> parseEffect(const std::string& effect) {
  if (effect == "NoSchedule") return queueing::TaintEffect::NoSchedule;
  if (effect == "PreferNoSchedule") return queueing::TaintEffect::PreferNoSchedule;
  if (effect == "NoExecute") return queueing::TaintEffect::NoExecute;
  return std::nullopt;
}

Result<queueing::NodeSpec> toNode(const Json& node, queueing::ResourceNames& names) {
  queueing::NodeSpec spec;
  spec.name = nameOf(node);
  spec.labels = labelsOf(node, "/metadata/labels");
  auto allocatable = toResourceVector(
      node.contains("status") ? node["status"].value("allocatable", Json()) : Json(), names,
      "status.allocatable");
  if (!allocatable) return allocatable.error();
  spec.allocatable = *allocatable;
  spec.unschedulable = boolAt(node, "/spec/unschedulable", false);
  spec.ready = false;
  if (node.contains("status") && node["status"].contains("conditions")) {
    for (const auto& c : node["status"]["conditions"]) {
      if (c.value("type", "") == "Ready") spec.ready = c.value("status", "") == "True";
    }
  }
  if (node.contains("spec") && node["spec"].contains("taints") &&
      node["spec"]["taints"].is_array()) {
    for (const auto& t : node["spec"]["taints"]) {
      auto effect = parseEffect(t.value("effect", ""));
      if (!effect) continue;
      spec.taints.push_back({t.value("key", ""), t.value("value", ""), *effect});
    }
  }
  auto topology = annotation(node, api::kGpuTopologyAnnotation);
  if (!topology.empty()) {
    auto parsed = api::parseGpuTopology(
        topology, fmt::format("metadata.annotations[{}]", api::kGpuTopologyAnnotation));
    if (!parsed) return parsed.error();
    spec.nvlink_islands = parsed->nvlink_islands;
    spec.numa_nodes = parsed->numa;
  }
  return spec;
}

// The shape of one pod, with a key that is equal for equal shapes.
struct ShapeAndKey {
  queueing::PodShape shape;
  std::string key;
};

Result<ShapeAndKey> toShape(const Json& pod, queueing::ResourceNames& names) {
  ShapeAndKey out;
  auto requests = podRequests(pod, names);
  if (!requests) return requests.error();
  out.shape.requests = *requests;
  out.shape.node_selector = labelsOf(pod, "/spec/nodeSelector");
  Json key_parts = Json::array();
  for (std::size_t i = 0; i < queueing::kMaxResources; ++i) key_parts.push_back((*requests)[i]);
  key_parts.push_back(pod["spec"].value("nodeSelector", Json::object()));
  const Json terms = pod["spec"].value(
      Json::json_pointer("/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/"
                         "nodeSelectorTerms"),
      Json::array());
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
  for (const auto& t : pod["spec"].value("tolerations", Json::array())) {
    queueing::Toleration tol;
    tol.key = t.value("key", "");
    tol.op = t.value("operator", "Equal") == "Exists" ? queueing::TolerationOperator::Exists
                                                      : queueing::TolerationOperator::Equal;
    tol.value = t.value("value", "");
    tol.effect = parseEffect(t.value("effect", ""));
    out.shape.tolerations.push_back(std::move(tol));
  }
  key_parts.push_back(pod["spec"].value("tolerations", Json::array()));
  out.key = key_parts.dump();
  return out;
}

std::int32_t priorityOf(const Json& group, const std::vector<const Json*>& pods,
                        const std::map<std::string, std::int32_t>& classes,
                        std::optional<std::int32_t> global_default) {
  auto cls = stringAt(group, "/spec/priorityClassName");
  if (!cls.empty()) {
    auto it = classes.find(cls);
    if (it != classes.end()) return it->second;
  }
  std::optional<std::int32_t> from_pods;
  for (const Json* p : pods) {
    auto v = p->value(Json::json_pointer("/spec/priority"), Json());
    if (v.is_number_integer()) from_pods = std::max(from_pods.value_or(INT32_MIN), v.get<int>());
    auto pc = stringAt(*p, "/spec/priorityClassName");
    if (!from_pods && !pc.empty() && classes.contains(pc)) from_pods = classes.at(pc);
  }
  if (from_pods) return *from_pods;
  return global_default.value_or(0);
}

}  // namespace

std::vector<int> parseGpuIndices(const std::string& text) {
  std::vector<int> out;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, ',')) {
    if (part.empty()) continue;
    try {
      std::size_t used = 0;
      int v = std::stoi(part, &used);
      if (used != part.size() || v < 0 || v > 63) return {};
      out.push_back(v);
    } catch (const std::exception&) {
      return {};
    }
  }
  return out;
}

std::string formatGpuIndices(const std::vector<int>& gpus) {
  return fmt::format("{}", fmt::join(gpus, ","));
}

ClusterSnapshot buildClusterSnapshot(const ApiObjects& objects, const SnapshotOptions& options) {
  ClusterSnapshot out;
  out.snapshot.now = options.now;
  auto& names = out.names;

  // Priority classes.
  std::map<std::string, std::int32_t> classes;
  std::optional<std::int32_t> global_default;
  for (const auto& pc : objects.priority_classes) {
    auto value = static_cast<std::int32_t>(intAt(pc, "/value"));
    classes[nameOf(pc)] = value;
    if (boolAt(pc, "/globalDefault", false)) global_default = value;
  }

  // Queues.
  auto invalid_queues = validateQueueTree(objects.queues);
  for (const auto& [name, error] : invalid_queues) out.problems.push_back({"Queue", name, error});
  std::set<std::string> queue_names;
  for (const auto& q : objects.queues) {
    auto name = nameOf(q);
    if (invalid_queues.contains(name)) continue;
    queueing::QueueSpec spec;
    spec.name = name;
    spec.parent = stringAt(q, "/spec/parent");
    spec.priority = static_cast<std::int32_t>(intAt(q, "/spec/priority"));
    if (auto w = intAt(q, "/spec/maxWaitSeconds", -1); w >= 0) spec.max_wait_seconds = w;
    spec.within_queue = stringAt(q, "/spec/preemption/withinQueue") == "Never"
                            ? queueing::WithinQueuePreemption::Never
                            : queueing::WithinQueuePreemption::LowerPriority;
    spec.reclaim = boolAt(q, "/spec/preemption/reclaim", true);
    spec.min_runtime_seconds = intAt(q, "/spec/preemption/minRuntimeSeconds");
    Json guaranteed = Json::object(), limit = Json::object(), lending = Json::object();
    std::optional<std::int64_t> weight;
    bool bad = false;
    const Json resources = q.value(Json::json_pointer("/spec/resources"), Json::object());
    for (const auto& [r, quota] : resources.items()) {
      if (!quota.is_object()) continue;
      if (quota.contains("guaranteed")) guaranteed[r] = quota["guaranteed"];
      if (quota.contains("limit")) limit[r] = quota["limit"];
      if (quota.contains("lendingLimit")) lending[r] = quota["lendingLimit"];
      if (quota.contains("overQuotaWeight") && (!weight || r == api::kGpuResource)) {
        auto w = api::Quantity::fromJson(quota["overQuotaWeight"]);
        if (w) weight = w->value();
      }
    }
    auto g = toResourceVector(guaranteed, names, "spec.resources[*].guaranteed");
    auto l = toResourceVector(limit, names, "spec.resources[*].limit");
    auto ll = toResourceVector(lending, names, "spec.resources[*].lendingLimit");
    for (const auto* r : {&g, &l, &ll}) {
      if (!r->ok()) {
        out.problems.push_back({"Queue", name, r->error()});
        bad = true;
        break;
      }
    }
    if (bad) continue;
    spec.guaranteed = *g;
    for (std::size_t slot = 0; slot < queueing::kMaxResources; ++slot) {
      const auto slot_name = slot < names.size() ? names.name(slot) : std::string();
      if (!slot_name.empty() && limit.contains(slot_name)) spec.limit[slot] = (*l)[slot];
      if (!slot_name.empty() && lending.contains(slot_name)) spec.lending_limit[slot] = (*ll)[slot];
    }
    if (weight) spec.over_quota_weight = *weight;
    if (auto u = options.usage.find(name); u != options.usage.end()) {
      for (const auto& [r, v] : u->second) {
        auto slot = names.slotFor(r);
        if (slot < queueing::kMaxResources) spec.decayed_usage[slot] = v;
      }
    }
    queue_names.insert(name);
    out.snapshot.queues.push_back(std::move(spec));
  }

  // Pods by gang; pods outside gangs count against their node.
  std::map<std::string, ResourceVector> held_outside;
  std::map<std::string, std::vector<const Json*>> pods_of_group;
  for (const auto& pod : objects.pods) {
    if (isTerminated(pod)) continue;
    auto group = label(pod, api::kPodGroupLabel);
    auto node = stringAt(pod, "/spec/nodeName");
    if (isTroupePod(pod) && !group.empty()) {
      pods_of_group[namespaceOf(pod) + "/" + group].push_back(&pod);
      continue;
    }
    if (node.empty()) continue;
    auto requests = podRequests(pod, names);
    if (requests) held_outside[node] += *requests;
  }

  // Nodes.
  std::set<std::string> node_names;
  for (const auto& n : objects.nodes) {
    auto spec = toNode(n, names);
    if (!spec) {
      out.problems.push_back({"Node", nameOf(n), spec.error()});
      continue;
    }
    if (auto it = held_outside.find(spec->name); it != held_outside.end()) {
      spec->allocatable = ResourceVector::max(spec->allocatable - it->second, ResourceVector());
    }
    node_names.insert(spec->name);
    out.snapshot.nodes.push_back(std::move(*spec));
  }

  // Gangs.
  for (const auto& pg : objects.pod_groups) {
    Gang gang;
    gang.key = keyOf(pg);
    gang.queue = stringAt(pg, "/spec/queue");
    gang.min_member =
        static_cast<std::int32_t>(std::max<std::int64_t>(1, intAt(pg, "/spec/minMember", 1)));
    auto phase = stringAt(pg, "/status/phase");
    auto& pods = pods_of_group[gang.key];
    std::sort(pods.begin(), pods.end(), [](const Json* a, const Json* b) {
      auto ia = std::atoi(label(*a, api::kReplicaIndexLabel).c_str());
      auto ib = std::atoi(label(*b, api::kReplicaIndexLabel).c_str());
      return std::tie(ia, a->at("metadata").at("name")) <
             std::tie(ib, b->at("metadata").at("name"));
    });
    if (phase == "Succeeded" || phase == "Failed") {
      gang.state = GangState::Finished;
      out.gangs[gang.key] = std::move(gang);
      continue;
    }
    queueing::GangSpec spec;
    spec.name = gang.key;
    spec.queue = gang.queue;
    spec.priority = priorityOf(pg, pods, classes, global_default);
    auto submitted = annotation(pg, kSubmittedAtAnnotation);
    spec.submit_time =
        !submitted.empty()
            ? std::atoll(submitted.c_str())
            : parseTimestamp(stringAt(pg, "/metadata/creationTimestamp")).value_or(options.now);
    spec.preemptible = annotation(pg, kPreemptibleAnnotation) != "false";
    auto level = annotation(pg, kTopologyLevelAnnotation);
    if (!level.empty()) {
      spec.topology.level = level;
      spec.topology.mode = annotation(pg, kTopologyModeAnnotation) == "Required"
                               ? queueing::TopologyMode::Required
                               : queueing::TopologyMode::Preferred;
    }
    auto estimate = annotation(pg, kRuntimeEstimateAnnotation);
    if (!estimate.empty()) spec.runtime_estimate = std::atoll(estimate.c_str());

    // Pod sets by shape, in the order of their first pod.
    std::vector<std::string> shape_keys;
    bool bad = false;
    queueing::RunningGang running;
    std::vector<std::int32_t> unbound_per_set;
    std::optional<std::int64_t> started;
    for (const Json* p : pods) {
      bool is_bound = !stringAt(*p, "/spec/nodeName").empty();
      // An unbound pod on its way out is neither wanted nor holding anything.
      if (!is_bound && isDeleting(*p)) continue;
      if (is_bound) {
        auto t = parseTimestamp(stringAt(*p, "/status/startTime"));
        if (t && (!started || *t < *started)) started = t;
      }
      auto shape = toShape(*p, names);
      if (!shape) {
        out.problems.push_back(
            {"PodGroup", gang.key,
             Error{shape.error().code,
                   fmt::format("pods[{}].{}", nameOf(*p), shape.error().field_path),
                   shape.error().message}});
        bad = true;
        break;
      }
      auto it = std::find(shape_keys.begin(), shape_keys.end(), shape->key);
      auto set = static_cast<std::int32_t>(it - shape_keys.begin());
      if (it == shape_keys.end()) {
        shape_keys.push_back(shape->key);
        spec.pod_sets.push_back(
            {std::make_shared<const queueing::PodShape>(std::move(shape->shape)), 0, 0});
        unbound_per_set.push_back(0);
      }
      GangPod gp;
      gp.ns = namespaceOf(*p);
      gp.name = nameOf(*p);
      gp.uid = stringAt(*p, "/metadata/uid");
      gp.pod_set = set;
      auto idx = label(*p, api::kReplicaIndexLabel);
      gp.replica_index = idx.empty() ? -1 : std::atoi(idx.c_str());
      gp.node = stringAt(*p, "/spec/nodeName");
      gp.gpus = parseGpuIndices(annotation(*p, api::kGpuIndicesAnnotation));
      gp.deleting = isDeleting(*p);
      if (gp.bound()) {
        running.pods.push_back({set, gp.node, gp.gpus});
        gang.bound_requests += spec.pod_sets[set].shape->requests;
        spec.pod_sets[set].count += 1;
      } else if (!gp.deleting) {
        spec.pod_sets[set].count += 1;
        unbound_per_set[set] += 1;
      }
      gang.pods.push_back(std::move(gp));
    }
    if (bad) continue;
    std::int32_t total = 0;
    for (const auto& s : spec.pod_sets) total += s.count;
    if (!running.pods.empty()) {
      for (std::size_t s = 0; s < spec.pod_sets.size(); ++s) {
        auto& ps = spec.pod_sets[s];
        std::int32_t placed = 0;
        for (const auto& rp : running.pods)
          if (rp.pod_set == static_cast<std::int32_t>(s)) ++placed;
        ps.min_count = spec.pod_sets.size() == 1 ? std::min(gang.min_member, ps.count) : ps.count;
        ps.min_count = std::max<std::int32_t>(0, std::min(ps.min_count, placed));
        ps.count = std::max(ps.count, placed);
      }
      for (const auto& pp : running.pods) {
        if (!node_names.contains(pp.node)) {
          out.problems.push_back(
              {"PodGroup", gang.key,
               Error{ErrorCode::NotFound, "pods[].spec.nodeName",
                     fmt::format("bound to node {} which does not exist", pp.node)}});
        }
      }
      running.spec = std::move(spec);
      running.start_time = std::min(started.value_or(options.now), options.now);
      gang.state = GangState::Running;
      out.snapshot.running.push_back(std::move(running));
    } else if (total >= gang.min_member && total > 0) {
      for (auto& ps : spec.pod_sets) {
        ps.min_count = spec.pod_sets.size() == 1 ? std::min(gang.min_member, ps.count) : ps.count;
      }
      gang.state = GangState::Pending;
      out.snapshot.pending.push_back(std::move(spec));
    } else {
      gang.state = GangState::WaitingForPods;
    }
    out.gangs[gang.key] = std::move(gang);
  }
  return out;
}

}  // namespace troupe::controllers
