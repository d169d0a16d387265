#include "controllers/queue_counts.h"

#include "controllers/gang_admissibility.h"

namespace troupe::controllers {

QueueFigures queueFigures(const ClusterSnapshot& cluster,
                          const std::function<bool(const std::string&)>& inadmissible) {
  QueueFigures out;
  std::map<std::string, std::string> parent;
  for (const auto& q : cluster.snapshot.queues) parent[q.name] = q.parent;
  // Adds to `queue` and each of its ancestors (a chain longer than the tree can only be a
  // cycle, which validation keeps out of the snapshot).
  auto up = [&](const std::string& queue, auto&& add) {
    std::string at = queue;
    for (std::size_t steps = 0; !at.empty() && steps <= parent.size() + 1; ++steps) {
      add(out.counts[at]);
      auto it = parent.find(at);
      if (it == parent.end()) break;
      at = it->second;
    }
  };
  std::map<std::string, bool> refused;  // pending gangs the engine finds inadmissible
  for (const auto& [key, gang] : cluster.gangs) {
    if (gang.state == GangState::Running) up(gang.queue, [](QueueCounts& c) { ++c.running; });
    if (gang.state != GangState::Pending) continue;
    const bool never = inadmissible(key);
    refused[key] = never;
    if (never)
      up(gang.queue, [](QueueCounts& c) { ++c.inadmissible; });
    else
      up(gang.queue, [](QueueCounts& c) { ++c.pending; });
  }
  for (const auto& g : cluster.snapshot.pending) {
    auto gang = cluster.gangs.find(g.name);
    if (gang == cluster.gangs.end() || gang->second.state != GangState::Pending) continue;
    if (refused[g.name]) continue;
    for (const auto& ps : g.pod_sets)
      out.waiting_requests[gang->second.queue] += ps.shape->requests * ps.min_count;
  }
  return out;
}

std::function<bool(const std::string&)> neverAdmissible(const ClusterSnapshot& cluster,
                                                        const queueing::Engine& engine) {
  return [&cluster, &engine](const std::string& key) {
    if (cluster.inadmissible.contains(key)) return true;
    const auto reason = engine.pendingReason(key);
    if (reason == queueing::PendingReason::Inadmissible) return true;
    if (reason != queueing::PendingReason::QueueNotFound || !cluster.admissibility) return false;
    auto gang = cluster.gangs.find(key);
    if (gang == cluster.gangs.end()) return false;
    return cluster.admissibility->whyNot(gang->second.queue, key.substr(0, key.find('/')))
        .has_value();
  };
}

}  // namespace troupe::controllers
