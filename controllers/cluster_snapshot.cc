#include "controllers/cluster_snapshot.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <set>
#include <span>
#include <string_view>

#include "api/gpu_type.h"
#include "api/quantity.h"
#include "api/well_known.h"
#include "common/check.h"
#include "controllers/annotations.h"
#include "controllers/gpu_milli.h"
#include "controllers/node_hold.h"
#include "controllers/object_json.h"
#include "controllers/resources.h"

namespace troupe::controllers {

using queueing::ResourceVector;
using Json = nlohmann::json;

namespace {

// A pod of a gang during the build: its facts as the cache shares them.
using MemberPod = const std::shared_ptr<const PodFacts>*;

std::int32_t priorityOf(const std::string& cls, std::span<const MemberPod> pods,
                        const std::map<std::string, std::int32_t>& classes,
                        std::optional<std::int32_t> global_default) {
  if (!cls.empty()) {
    auto it = classes.find(cls);
    if (it != classes.end()) return it->second;
  }
  std::optional<std::int32_t> from_pods;
  for (const MemberPod member : pods) {
    const PodFacts* p = member->get();
    if (p->priority) from_pods = std::max(from_pods.value_or(INT32_MIN), *p->priority);
    const auto& pc = p->priority_class;
    if (!from_pods && !pc.empty() && classes.contains(pc)) from_pods = classes.at(pc);
  }
  if (from_pods) return *from_pods;
  return global_default.value_or(0);
}

}  // namespace

namespace {

// Where a gang's bound pods `running` are by GPU type: the type of the node of the first
// (a gang is placed on one type, and so elastic growth keeps it there).
GangPlacement placementOf(const queueing::RunningGang& running, const GpuTypes& types,
                          const std::vector<queueing::NodeSpec>& nodes) {
  GangPlacement out;
  if (running.pods.empty()) return out;
  out.running = true;
  const std::string& node_name = running.pods.front().node;
  auto node = std::lower_bound(
      nodes.begin(), nodes.end(), node_name,
      [](const queueing::NodeSpec& n, const std::string& name) { return n.name < name; });
  if (node != nodes.end() && node->name == node_name) out.type = types.ofNode(node->labels);
  return out;
}

// The least of each pod set a waiting gang is admitted with: all of it, or for an elastic
// gang of one pod set its minMember.
void setPendingMinimum(std::vector<queueing::PodSet>& pod_sets, std::int32_t min_member) {
  for (auto& ps : pod_sets)
    ps.min_count = pod_sets.size() == 1 ? std::min(min_member, ps.count) : ps.count;
}

}  // namespace

void recycle(ClusterSnapshot&& used, SnapshotFacts& facts) {
  TROUPE_CHECK(used.node_facts.size() == used.snapshot.nodes.size(),
               "a snapshot with {} nodes has facts for {}", used.snapshot.nodes.size(),
               used.node_facts.size());
  if (used.pod_reads != facts.pods.reads()) {  // not the latest build's: nothing to reuse
    facts.spare.reset();
    return;
  }
  facts.spare = std::move(used);
}

namespace {

// Takes out of snapshot.pending the gangs whose queue does not admit their namespace
// (GangAdmissibility), every build: a recycled gang too, since a queue or a namespace may
// have changed. Nothing to do, and no pass over the gangs, while no queue restricts.
void leaveOutInadmissible(ClusterSnapshot& out) {
  if (!out.admissibility->restrictsNamespaces()) return;
  auto& pending = out.snapshot.pending;
  std::size_t kept = 0;
  for (std::size_t i = 0; i < pending.size(); ++i) {
    const auto& spec = pending[i];
    const auto slash = spec.name.find('/');
    const std::string ns = spec.name.substr(0, slash);
    if (auto why = out.admissibility->whyNot(spec.queue, ns)) {
      out.inadmissible.emplace(spec.name, std::move(*why));
      continue;
    }
    if (kept != i) {
      pending[kept] = std::move(pending[i]);
      out.pending_recycled[kept] = out.pending_recycled[i];
    }
    ++kept;
  }
  pending.resize(kept);
  out.pending_recycled.resize(kept);
}

// One build; `spare`, when given, is the recycled snapshot to move unchanged parts from.
// `recycled_gangs` says whether any gang was taken from it.
ClusterSnapshot build(const ApiObjects& objects, const SnapshotOptions& options,
                      ClusterSnapshot* spare, bool& recycled_gangs) {
  recycled_gangs = false;
  ClusterSnapshot out;
  out.snapshot.now = options.now;
  auto& names = out.names;

  // Priority classes.
  auto& classes = out.priority_classes;
  auto& global_default = out.default_priority;
  for (const auto& pc : objects.priority_classes) {
    auto value = static_cast<std::int32_t>(intAt(pc, "/value"));
    classes[nameOf(pc)] = value;
    if (boolAt(pc, "/globalDefault", false)) global_default = value;
  }

  // GPU types: which nodes have which GPUs.
  std::vector<std::pair<std::string, Error>> type_problems;
  out.gpu_types = GpuTypes::read(objects.gpu_types, type_problems);
  for (auto& [name, error] : type_problems)
    out.problems.push_back({"GPUType", name, std::move(error)});
  const GpuTypes& gpu_types = out.gpu_types;

  // Queues: those that cannot take jobs are left out, and only they.
  out.admissibility = std::make_shared<const GangAdmissibility>(objects.queues, objects.namespaces);
  const auto& unusable = out.admissibility->forest().problems();
  for (const auto& [name, problem] : unusable)
    out.problems.push_back({"Queue", name, problem.error});
  std::set<std::string> queue_names;
  for (const auto& q : objects.queues) {
    auto name = nameOf(q);
    if (unusable.contains(name)) continue;
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
    readGpuTypeFungibility(q, spec);
    Json guaranteed = Json::object(), limit = Json::object(), lending = Json::object();
    std::optional<std::int64_t> weight;
    bool bad = false;
    const Json resources = q.value(Json::json_pointer("/spec/resources"), Json::object());
    for (const auto& [r, quota] : resources.items()) {
      if (!quota.is_object()) continue;
      if (quota.contains("guaranteed")) guaranteed[r] = quota["guaranteed"];
      if (quota.contains("limit")) limit[r] = quota["limit"];
      if (quota.contains("lendingLimit")) lending[r] = quota["lendingLimit"];
      // A GPU type's quota is the quota of its resource (controllers/gpu_types.h).
      if (r == api::kGpuResource && quota.contains("gpuTypes") && quota["gpuTypes"].is_array()) {
        for (const auto& type : quota["gpuTypes"]) {
          if (!type.is_object() || !type.contains("name") || !type["name"].is_string()) continue;
          const std::string typed = api::gpuTypeResource(type["name"].get<std::string>());
          if (type.contains("guaranteed")) guaranteed[typed] = type["guaranteed"];
          if (type.contains("limit")) limit[typed] = type["limit"];
          if (type.contains("lendingLimit")) lending[typed] = type["lendingLimit"];
        }
      }
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
    // Quota in GPUs is quota in thousandths too, which fractional pods are counted in.
    const std::string gpu(api::kGpuResource);
    if (guaranteed.contains(gpu) || limit.contains(gpu) || lending.contains(gpu)) {
      if (!mirrorGpuQuota(spec.guaranteed, names) || !mirrorGpuQuota(spec.limit, names) ||
          !mirrorGpuQuota(spec.lending_limit, names)) {
        out.problems.push_back(
            {"Queue", name,
             makeError(ErrorCode::Invalid, "spec.resources",
                       fmt::format("Troupe tracks at most {} resource names, {} included",
                                   queueing::kMaxResources, api::kGpuMilliResource))});
        continue;
      }
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
  SnapshotFacts fresh;
  SnapshotFacts& facts = options.facts ? *options.facts : fresh;
  facts.pods.read(objects.pods);
  facts.nodes.read(objects.nodes);
  // The PodGroups in the API and those of lone pods that have none there.
  const ObjectList pod_groups =
      facts.lone_groups.complete(objects.pod_groups, objects.pods, facts.pods);
  facts.groups.read(pod_groups);
  if (options.facts) out.pod_reads = facts.pods.reads();
  // What bound pods no gang counts hold, by node: their requests and GPU indices.
  std::map<std::string, NodeHold> held_outside;
  auto holdPod = [&](const PodFacts& pod) {
    NodeHold& h = held_outside[pod.node];
    if (auto requests = pod.requests.in(names)) h.requests += *requests;
    h.gpus |= gpuMask(pod.gpus);
  };
  // The pods of each group, found by a merge of two key orders rather than a hash table
  // by group name: that table, filled and probed once per group every cycle, was a quarter
  // of a snapshot at 100,000 pods, a cache miss per probe. The caches list in key order,
  // and the pods of one group ("<job>-<index>") mostly follow each other in that order, so
  // both sorts below usually find their input sorted already.
  std::vector<std::pair<std::string_view, MemberPod>> by_group;
  by_group.reserve(objects.pods.size());
  for (std::size_t i = 0; i < objects.pods.size(); ++i) {
    const PodFacts& pod = facts.pods[i];
    if (pod.terminated) continue;
    if (!pod.group.empty()) {
      by_group.emplace_back(pod.group, &facts.pods.shared(i));
      continue;
    }
    if (!pod.node.empty()) holdPod(pod);
  }
  auto group_less = [](const auto& a, const auto& b) { return a.first < b.first; };
  if (!std::is_sorted(by_group.begin(), by_group.end(), group_less))
    std::stable_sort(by_group.begin(), by_group.end(), group_less);
  std::vector<MemberPod> members(by_group.size());
  for (std::size_t i = 0; i < by_group.size(); ++i) members[i] = by_group[i].second;
  // The groups in key order, and each group's pods as a range of `members`.
  std::vector<std::pair<std::string_view, std::size_t>> group_order;
  group_order.reserve(pod_groups.size());
  for (std::size_t i = 0; i < pod_groups.size(); ++i)
    group_order.emplace_back(facts.groups[i].key, i);
  if (!std::is_sorted(group_order.begin(), group_order.end()))
    std::sort(group_order.begin(), group_order.end());
  std::vector<std::pair<std::size_t, std::size_t>> members_of(pod_groups.size());
  // A bound pod no gang will count still holds its node: one whose group does not exist
  // (not made yet, or deleted under it) or is finished while the pod lives on.
  auto holdOutside = [&](std::size_t from, std::size_t to) {
    for (std::size_t m = from; m < to; ++m) {
      const PodFacts& pod = **by_group[m].second;
      if (!pod.node.empty()) holdPod(pod);
    }
  };
  std::size_t next_member = 0;
  for (std::size_t g = 0; g < group_order.size(); ++g) {
    const auto& [key, index] = group_order[g];
    if (g > 0 && group_order[g - 1].first == key) {  // the same key twice: the same pods
      members_of[index] = members_of[group_order[g - 1].second];
      continue;
    }
    const std::size_t orphans = next_member;
    while (next_member < by_group.size() && by_group[next_member].first < key) ++next_member;
    holdOutside(orphans, next_member);
    const std::size_t first = next_member;
    while (next_member < by_group.size() && by_group[next_member].first == key) ++next_member;
    members_of[index] = {first, next_member};
    if (facts.groups[index].finished) holdOutside(first, next_member);
  }
  holdOutside(next_member, by_group.size());

  // Nodes, and their names as views of the facts' names, sorted for the check that every
  // bound pod's node exists (a hash set of them cost 6% of a cycle, a cache miss a probe).
  std::vector<std::string_view> node_names;
  node_names.reserve(objects.nodes.size());
  // The recycled snapshot's specs: both lists are in the caches' key order, so a walk
  // beside this listing finds each unchanged node's spec.
  std::vector<queueing::NodeSpec> no_nodes;
  auto& spare_nodes = spare ? spare->snapshot.nodes : no_nodes;
  std::size_t next_spare = 0, nodes_moved = 0;
  out.snapshot.nodes.reserve(objects.nodes.size());
  out.node_facts.reserve(objects.nodes.size());
  for (std::size_t i = 0; i < objects.nodes.size(); ++i) {
    const NodeFacts& node = facts.nodes[i];
    auto allocatable = node.allocatable.in(names);
    if (!allocatable || node.error) {
      out.problems.push_back(
          {"Node", node.spec.name, allocatable ? *node.error : allocatable.error()});
      continue;
    }
    const auto& source = facts.nodes.shared(i);
    while (next_spare < spare_nodes.size() && spare_nodes[next_spare].name < node.spec.name)
      ++next_spare;
    queueing::NodeSpec spec;
    if (next_spare < spare_nodes.size() && spare->node_facts[next_spare] == source) {
      // Made from these very facts: equal to node.spec but for allocatable, set below.
      spec = std::move(spare_nodes[next_spare++]);
      ++nodes_moved;
    } else {
      spec = node.spec;
    }
    spec.allocatable = *allocatable;
    if (const GpuTypeFacts* type = gpu_types.ofNode(spec.labels)) {
      const std::size_t slot = names.slotFor(api::gpuTypeResource(type->name));
      if (slot < queueing::kMaxResources) spec.allocatable[slot] = spec.allocatable[queueing::kGpu];
    }
    spec.held_gpus.clear();
    if (auto it = held_outside.find(spec.name); it != held_outside.end()) holdOn(spec, it->second);
    node_names.push_back(node.spec.name);
    out.snapshot.nodes.push_back(std::move(spec));
    out.node_facts.push_back(source);
  }
  if (!std::is_sorted(node_names.begin(), node_names.end()))
    std::sort(node_names.begin(), node_names.end());

  // Gangs from the recycled snapshot. Only when it is the build of the read just before
  // this one (so that the pods' changes cover everything between the two), with the same
  // priority classes and not from a later time: then a gang whose PodGroup is the same
  // version and none of whose pods is new, changed or gone comes out as it did, but for
  // its stand-ins for `now`.
  const bool gangs_recyclable =
      spare && options.facts && spare->pod_reads + 1 == facts.pods.reads() &&
      spare->priority_classes == classes && spare->default_priority == global_default &&
      spare->gpu_types == gpu_types && spare->snapshot.now <= options.now;
  // The nodes' names are those of the recycled snapshot when every node was moved from it.
  const bool same_nodes =
      spare && nodes_moved == spare_nodes.size() && nodes_moved == out.snapshot.nodes.size();
  std::vector<std::string_view> changed_groups, troubled_groups;
  if (gangs_recyclable) {
    for (const auto& change : facts.pods.changes())
      for (const auto* p : {change.before.get(), change.after.get()})
        if (p && !p->group.empty()) changed_groups.push_back(p->group);
    std::sort(changed_groups.begin(), changed_groups.end());
    // A gang the recycled snapshot named in a problem is built again, to name it again.
    for (const auto& problem : spare->problems)
      if (problem.kind == "PodGroup") troubled_groups.push_back(problem.key);
    std::sort(troubled_groups.begin(), troubled_groups.end());
  }
  auto spare_gang = spare ? spare->gangs.begin() : out.gangs.end();
  std::size_t spare_running = 0, spare_pending = 0;
  // Moves gang `key`, built from `group`, out of the recycled snapshot; false when it
  // must be built again.
  auto take = [&](const std::string& key, const std::shared_ptr<const PodGroupFacts>& group) {
    if (!gangs_recyclable || !group->submit_time) return false;  // else submit time is `now`
    if (std::binary_search(changed_groups.begin(), changed_groups.end(), std::string_view(key)) ||
        std::binary_search(troubled_groups.begin(), troubled_groups.end(), std::string_view(key)))
      return false;
    while (spare_gang != spare->gangs.end() && spare_gang->first < key) ++spare_gang;
    if (spare_gang == spare->gangs.end() || spare_gang->first != key ||
        spare_gang->second.group != group)
      return false;
    const Gang& was = spare_gang->second;
    if (was.state == GangState::Running) {
      auto& running = spare->snapshot.running;
      while (spare_running < running.size() && running[spare_running].spec.name < key)
        ++spare_running;
      if (spare_running == running.size() || running[spare_running].spec.name != key) return false;
      auto& r = running[spare_running];
      const bool started = spare->running_started[spare_running];
      // Its start is the earliest pod start, or `now` when that is later or no pod started:
      // a start before the recycled snapshot's `now` stays, the stand-in moves.
      if (started && r.start_time >= spare->snapshot.now) return false;
      if (!same_nodes)
        for (const auto& pod : r.pods)
          if (!std::binary_search(node_names.begin(), node_names.end(), std::string_view(pod.node)))
            return false;  // built again, to name the missing node
      if (!started) r.start_time = options.now;
      out.snapshot.running.push_back(std::move(r));
      out.running_started.push_back(started);
      out.running_recycled.push_back(true);
      ++spare_running;
    } else if (was.state == GangState::Pending) {
      auto& pending = spare->snapshot.pending;
      while (spare_pending < pending.size() && pending[spare_pending].name < key) ++spare_pending;
      if (spare_pending == pending.size() || pending[spare_pending].name != key) return false;
      out.snapshot.pending.push_back(std::move(pending[spare_pending++]));
      out.pending_recycled.push_back(true);
    }
    auto next = std::next(spare_gang);
    if (was.terminating > 0) out.terminating_gangs.push_back(key);
    out.gangs.insert(out.gangs.end(), spare->gangs.extract(spare_gang));
    spare_gang = next;
    recycled_gangs = true;
    out.recycled_from = spare->pod_reads;
    return true;
  };

  // Bound pods of gangs left out for a problem: they hold their nodes all the same.
  std::vector<const PodFacts*> left_out;
  // Gangs. Room for every group: growing these moved every gang built so far, again and
  // again.
  out.snapshot.running.reserve(pod_groups.size());
  out.running_started.reserve(pod_groups.size());
  for (std::size_t i = 0; i < pod_groups.size(); ++i) {
    const PodGroupFacts& group = facts.groups[i];
    if (take(group.key, facts.groups.shared(i))) continue;
    Gang gang;
    gang.group = facts.groups.shared(i);
    gang.key = group.key;
    gang.queue = group.queue;
    gang.min_member = group.min_member;
    if (group.finished) {
      // Most groups of a long-lived cluster: nothing of their pods is read.
      gang.state = GangState::Finished;
      out.gangs.emplace_hint(out.gangs.end(), group.key, std::move(gang));
      continue;
    }
    const auto [first_member, end_member] = members_of[i];
    const std::span<MemberPod> pods(members.data() + first_member, end_member - first_member);
    // By replica index (pods without one first), then name: a total order.
    std::sort(pods.begin(), pods.end(), [](MemberPod a, MemberPod b) {
      auto ia = std::max(0, (*a)->replica_index);
      auto ib = std::max(0, (*b)->replica_index);
      return std::tie(ia, (*a)->name) < std::tie(ib, (*b)->name);
    });
    queueing::GangSpec spec;
    spec.name = gang.key;
    spec.queue = gang.queue;
    spec.priority = priorityOf(group.priority_class, pods, classes, global_default);
    spec.submit_time = group.submit_time.value_or(options.now);
    spec.preemptible = group.preemptible;
    if (!group.topology_level.empty()) {
      spec.topology.level = group.topology_level;
      spec.topology.mode = group.topology_required ? queueing::TopologyMode::Required
                                                   : queueing::TopologyMode::Preferred;
    }
    spec.runtime_estimate = group.runtime_estimate;

    // Pod sets by shape, in the order of their first pod.
    std::vector<std::string> shape_keys;
    bool bad = false;
    queueing::RunningGang running;
    std::vector<std::int32_t> unbound_per_set;
    std::optional<std::int64_t> started;
    for (const MemberPod member : pods) {
      const PodFacts* p = member->get();
      bool is_bound = !p->node.empty();
      // An unbound pod on its way out is neither wanted nor holding anything.
      if (!is_bound && p->deleting) continue;
      if (is_bound && p->start_time && (!started || *p->start_time < *started))
        started = p->start_time;
      auto requests = p->requests.in(names);
      std::optional<Error> error;
      if (!requests)
        error = requests.error();
      else if (p->shape_error)
        error = p->shape_error;
      if (error) {
        out.problems.push_back(
            {"PodGroup", gang.key,
             Error{error->code, fmt::format("pods[{}].{}", p->name, error->field_path),
                   error->message}});
        bad = true;
        break;
      }
      auto it = std::find(shape_keys.begin(), shape_keys.end(), p->shape->key);
      auto set = static_cast<std::int32_t>(it - shape_keys.begin());
      if (it == shape_keys.end()) {
        shape_keys.push_back(p->shape->key);
        auto shape = std::make_shared<queueing::PodShape>(p->shape->shape);
        shape->requests = *requests;
        spec.pod_sets.push_back({std::move(shape), 0, 0});
        unbound_per_set.push_back(0);
      }
      if (is_bound) {
        // A pod being deleted still holds its node until it is gone (or finished).
        running.pods.push_back({set, p->node, p->gpus, p->deleting});
        if (p->deleting) ++gang.terminating;
        gang.bound_requests += spec.pod_sets[set].shape->requests;
        spec.pod_sets[set].count += 1;
      } else if (!p->deleting) {
        spec.pod_sets[set].count += 1;
        unbound_per_set[set] += 1;
      }
      gang.pods.push_back(GangPod{*member, set});
    }
    if (bad) {
      // Left out of scheduling, but what its bound pods hold stays held.
      for (const MemberPod member : pods)
        if (!(*member)->node.empty()) left_out.push_back(member->get());
      continue;
    }
    std::int32_t total = 0;
    for (const auto& s : spec.pod_sets) total += s.count;
    // GPU types: a running gang stays on the type of its nodes; a pending one goes to the
    // engine with every type it accepts, the one it prefers first. The alternatives keep
    // the sizes it was submitted with, as the engine holds them once it runs.
    if (auto typed =
            offerOnGpuTypes(spec, group.gpu_types,
                            placementOf(running, gpu_types, out.snapshot.nodes), gpu_types, names);
        !typed) {
      out.problems.push_back({"PodGroup", gang.key, typed.error()});
      for (const MemberPod member : pods)
        if (!(*member)->node.empty()) left_out.push_back(member->get());
      continue;
    } else {
      gang.gpu_type = std::move(*typed);
      for (auto& alternative : spec.alternatives)
        setPendingMinimum(alternative.pod_sets, gang.min_member);
    }
    if (!running.pods.empty()) {
      gang.bound_requests = ResourceVector();
      for (const auto& pp : running.pods)
        gang.bound_requests += spec.pod_sets[static_cast<std::size_t>(pp.pod_set)].shape->requests;
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
        if (!std::binary_search(node_names.begin(), node_names.end(), std::string_view(pp.node))) {
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
      out.running_started.push_back(started.has_value());
      out.running_recycled.push_back(false);
    } else if (total >= gang.min_member && total > 0) {
      setPendingMinimum(spec.pod_sets, gang.min_member);
      gang.state = GangState::Pending;
      out.snapshot.pending.push_back(std::move(spec));
      out.pending_recycled.push_back(false);
    } else {
      gang.state = GangState::WaitingForPods;
    }
    if (gang.terminating > 0) out.terminating_gangs.push_back(gang.key);
    out.gangs.emplace_hint(out.gangs.end(), group.key, std::move(gang));
  }
  for (const PodFacts* pod : left_out) {
    auto node = std::lower_bound(
        out.snapshot.nodes.begin(), out.snapshot.nodes.end(), pod->node,
        [](const queueing::NodeSpec& n, const std::string& name) { return n.name < name; });
    if (node == out.snapshot.nodes.end() || node->name != pod->node) continue;  // no such node
    NodeHold hold;
    if (auto requests = pod->requests.in(names)) hold.requests = *requests;
    hold.gpus = gpuMask(pod->gpus);
    holdOn(*node, hold);
  }
  leaveOutInadmissible(out);
  return out;
}

}  // namespace

ClusterSnapshot buildClusterSnapshot(const ApiObjects& objects, const SnapshotOptions& options) {
  std::optional<ClusterSnapshot> spare;
  if (options.facts) spare.swap(options.facts->spare);
  bool recycled_gangs = false;
  auto out = build(objects, options, spare ? &*spare : nullptr, recycled_gangs);
  // A recycled gang's requests are in the recycled snapshot's resource slots. Slots go to
  // names in the order objects name them, and a gang taken whole names nothing, so the
  // slots can come out otherwise (a resource now named first elsewhere, or by nothing):
  // then the gangs are all built again.
  if (recycled_gangs && !(out.names == spare->names))
    out = build(objects, options, nullptr, recycled_gangs);
  return out;
}

}  // namespace troupe::controllers
