#include "controllers/refused_gang_holds.h"

#include <algorithm>
#include <map>
#include <string_view>

#include "controllers/node_hold.h"

namespace troupe::controllers {

std::vector<Problem> holdRefusedGangs(queueing::Engine& engine, const ClusterSnapshot& cluster,
                                      const std::vector<Problem>& refused) {
  std::vector<std::string_view> gangs;
  for (const auto& p : refused)
    if (p.kind == "PodGroup") gangs.push_back(p.key);
  if (gangs.empty()) return {};
  std::sort(gangs.begin(), gangs.end());
  std::map<std::string, NodeHold> holds;  // by node name
  for (const auto& r : cluster.snapshot.running) {
    if (!std::binary_search(gangs.begin(), gangs.end(), std::string_view(r.spec.name))) continue;
    for (const auto& pod : r.pods) {
      NodeHold& h = holds[pod.node];
      if (pod.pod_set >= 0 && static_cast<std::size_t>(pod.pod_set) < r.spec.pod_sets.size() &&
          r.spec.pod_sets[static_cast<std::size_t>(pod.pod_set)].shape)
        h.requests += r.spec.pod_sets[static_cast<std::size_t>(pod.pod_set)].shape->requests;
      h.gpus |= gpuMask(pod.gpus);
    }
  }
  std::vector<Problem> problems;
  for (const auto& [node_name, hold] : holds) {
    const std::string& name = node_name;  // captured below (not a structured binding)
    auto node = std::find_if(cluster.snapshot.nodes.begin(), cluster.snapshot.nodes.end(),
                             [&](const queueing::NodeSpec& n) { return n.name == name; });
    if (node == cluster.snapshot.nodes.end()) continue;  // no such node: nothing to hold
    queueing::NodeSpec held = *node;
    holdOn(held, hold);
    auto s = engine.upsertNode(held);
    if (!s) {
      // GPUs listed beyond the node's own make its GPU groups name GPUs it no longer
      // counts: the node is held without them rather than not at all.
      held.nvlink_islands.clear();
      held.numa_nodes.clear();
      s = engine.upsertNode(held);
    }
    if (!s) problems.push_back({"Node", name, s.error()});
  }
  return problems;
}

}  // namespace troupe::controllers
