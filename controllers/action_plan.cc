#include "controllers/action_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "controllers/pods_in_the_way.h"

namespace troupe::controllers {
namespace {

// Maps placements onto the gang's unbound pods, pod set by pod set, in replica order, on
// GPU type `gpu_type` ("" for none). Nothing when a placement finds no pod: a gang is bound
// whole or not at all.
std::optional<std::vector<state::PlannedBinding>> assign(
    const Gang& gang, const std::vector<queueing::PodPlacement>& placements,
    const std::string& gpu_type) {
  std::vector<state::PlannedBinding> out;
  std::vector<bool> used(gang.pods.size(), false);
  for (const auto& p : placements) {
    bool found = false;
    for (std::size_t i = 0; i < gang.pods.size(); ++i) {
      const auto& pod = gang.pods[i];
      if (used[i] || pod.bound() || pod.deleting() || pod.pod_set != p.pod_set) continue;
      used[i] = true;
      out.push_back({pod.ns(), pod.name(), p.node, p.gpus, gpu_type});
      found = true;
      break;
    }
    if (!found) return std::nullopt;
  }
  return out;
}

std::string describeNodes(const std::vector<state::PlannedBinding>& bindings) {
  std::vector<std::string> nodes;
  for (const auto& b : bindings) nodes.push_back(b.node);
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  return fmt::format("{}", fmt::join(nodes, ","));
}

const char* preemptionReasonName(queueing::PreemptionReason r) {
  return r == queueing::PreemptionReason::Reclaim ? "Reclaim" : "WithinQueue";
}

}  // namespace

ActionPlan planActions(const queueing::Decisions& decisions, const ClusterSnapshot& cluster,
                       std::int64_t now) {
  ActionPlan plan;
  auto gangOf = [&](const std::string& key) -> const Gang* {
    auto it = cluster.gangs.find(key);
    return it == cluster.gangs.end() ? nullptr : &it->second;
  };

  // The gangs each preemptor preempts, in the order of the decisions.
  std::vector<std::pair<std::string, std::vector<std::string>>> victims_of;
  for (const auto& p : decisions.preemptions) {
    const Gang* gang = gangOf(p.gang);
    if (!gang) continue;
    for (const auto& pod : gang->pods)
      if (pod.bound() && !pod.deleting())
        plan.deletions.push_back({pod.ns(), pod.name(), pod.uid(), p.gang, "Preempted"});
    plan.preempted.push_back({p.gang, p.preemptor, preemptionReasonName(p.reason)});
    plan.events.push_back({p.gang, "Warning", "Preempted",
                           fmt::format("Preempted by {} ({}) in queue {}", p.preemptor,
                                       preemptionReasonName(p.reason), p.queue)});
    auto victims = std::find_if(victims_of.begin(), victims_of.end(),
                                [&](const auto& v) { return v.first == p.preemptor; });
    if (victims == victims_of.end())
      victims = victims_of.insert(victims_of.end(), {p.preemptor, {}});
    victims->second.push_back(p.gang);
  }
  for (const auto& [preemptor, victims] : victims_of)
    plan.events.push_back(
        {preemptor, "Normal", "Preempting",
         fmt::format("Preempting {} to reclaim capacity", fmt::join(victims, ", "))});

  for (const auto& r : decisions.resizes) {
    const Gang* gang = gangOf(r.gang);
    if (!gang) continue;
    // Shrink: the bound pods on the named nodes with the highest replica indices go.
    std::vector<bool> taken(gang->pods.size(), false);
    bool ok = true;
    std::vector<PodDeletion> shrink;
    for (const auto& removed : r.removed) {
      std::optional<std::size_t> pick;
      for (std::size_t i = 0; i < gang->pods.size(); ++i) {
        const auto& pod = gang->pods[i];
        if (taken[i] || !pod.bound() || pod.deleting() || pod.node() != removed.node ||
            pod.pod_set != removed.pod_set)
          continue;
        if (!pick || pod.gpus() == removed.gpus ||
            (gang->pods[*pick].gpus() != removed.gpus &&
             pod.replicaIndex() > gang->pods[*pick].replicaIndex()))
          pick = i;
      }
      if (!pick) {
        ok = false;
        break;
      }
      taken[*pick] = true;
      const auto& pod = gang->pods[*pick];
      shrink.push_back({pod.ns(), pod.name(), pod.uid(), r.gang, "Shrunk"});
    }
    auto grow = assign(*gang, r.added, gang->gpu_type);  // it grows on the type it runs on
    if (!ok || !grow) {
      plan.skipped.push_back(
          {"PodGroup", r.gang,
           Error{ErrorCode::Conflict, "", "the resize names pods that are no longer there"}});
      continue;
    }
    std::int32_t size = 0;
    for (auto c : r.pod_set_counts) size += c;
    if (!grow->empty()) {
      plan.bindings.push_back({r.gang, r.queue, decisions.cycle, now, std::move(*grow)});
    }
    for (auto& d : shrink) plan.deletions.push_back(std::move(d));
    plan.events.push_back(
        {r.gang, "Normal", "Resized",
         fmt::format("Resized to {} pods (+{} -{}){}", size, r.added.size(), r.removed.size(),
                     r.preemptor.empty() ? "" : fmt::format(" to make room for {}", r.preemptor)),
         !r.added.empty()});
  }

  for (const auto& a : decisions.admissions) {
    const Gang* gang = gangOf(a.gang);
    auto bindings = gang ? assign(*gang, a.pods, a.variant) : std::nullopt;
    if (!bindings) {
      plan.skipped.push_back({"PodGroup", a.gang,
                              Error{ErrorCode::Conflict, "",
                                    "the admission names more pods than the gang has unbound"}});
      continue;
    }
    plan.events.push_back({a.gang, "Normal", "Admitted",
                           fmt::format("Admitted by queue {}: {} pods on {}", a.queue,
                                       bindings->size(), describeNodes(*bindings)),
                           true});
    plan.bindings.push_back({a.gang, a.queue, decisions.cycle, now, std::move(*bindings)});
  }
  plan.making_room = podsInTheWay(decisions, cluster, plan.bindings);
  return plan;
}

}  // namespace troupe::controllers
