#include "controllers/bound_allocation.h"

namespace troupe::controllers {

std::map<std::string, queueing::ResourceVector> boundAllocation(
    const ClusterSnapshot& cluster, const std::vector<const state::AdmissionRecord*>& bound) {
  std::map<std::string, queueing::ResourceVector> leaf;
  // Gangs of one queue mostly come together in key order (one namespace, one team): the
  // last queue's entry is kept rather than looked up again for each of 100,000 gangs.
  const std::string* last = nullptr;
  queueing::ResourceVector* held = nullptr;
  for (const auto& [key, gang] : cluster.gangs) {
    if (gang.state != GangState::Running) continue;
    if (last == nullptr || *last != gang.queue) {
      last = &gang.queue;
      held = &leaf[gang.queue];
    }
    *held += gang.bound_requests;
  }
  auto names = cluster.names;  // a copy: mapping amounts may only look names up here
  for (const auto* record : bound) {
    auto gang = cluster.gangs.find(record->gang);
    if (gang == cluster.gangs.end()) continue;
    for (const auto& b : record->bindings)
      for (const auto& pod : gang->second.pods)
        if (pod.name() == b.pod && pod.ns() == b.ns) {
          if (auto requests = pod.facts->requests.in(names)) leaf[gang->second.queue] += *requests;
          break;
        }
  }
  // Up the tree: every queue of the snapshot, with its descendants' gangs.
  std::map<std::string, std::string> parent;
  for (const auto& q : cluster.snapshot.queues) parent[q.name] = q.parent;
  std::map<std::string, queueing::ResourceVector> out;
  for (const auto& q : cluster.snapshot.queues) out[q.name];
  for (const auto& [queue, amount] : leaf) {
    std::string at = queue;
    // A chain longer than the tree can only be a cycle, which validation keeps out.
    for (std::size_t steps = 0; !at.empty() && parent.contains(at) && steps <= parent.size();
         ++steps) {
      out[at] += amount;
      at = parent[at];
    }
  }
  return out;
}

}  // namespace troupe::controllers
