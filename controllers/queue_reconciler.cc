#include "controllers/queue_reconciler.h"

#include <optional>
#include <vector>

#include "common/helper_pool.h"
#include "common/log.h"
#include "controllers/cluster_writer.h"
#include "controllers/object_json.h"
#include "controllers/queue_counts.h"
#include "controllers/queue_status.h"
#include "kube/resource_type.h"

namespace troupe::controllers {

QueueReconciler::QueueReconciler(ClusterWriter& writer, MetricsRegistry& metrics)
    : writer_(writer), metrics_(metrics) {}

void QueueReconciler::reconcile(const ObjectList& queues, const queueing::Engine& engine,
                                const ClusterSnapshot& cluster,
                                const std::map<std::string, queueing::ResourceVector>& allocated,
                                std::int64_t t) {
  reportUnusableQueues(cluster);
  auto figures = queueFigures(cluster, neverAdmissible(cluster, engine));
  auto& counts = figures.counts;
  auto& pending_requests = figures.waiting_requests;
  struct StatusWrite {
    std::string queue;
    Json from, to;
  };
  std::vector<StatusWrite> status_writes;
  std::map<std::string, const queueing::QueueSpec*> specs;
  for (const auto& spec : cluster.snapshot.queues) specs[spec.name] = &spec;
  metrics_.clear("troupe_queue_guaranteed");
  metrics_.clear("troupe_queue_fair_share");
  metrics_.clear("troupe_queue_allocated");
  metrics_.clear("troupe_queue_pending");
  for (const auto& q : queues) {
    const auto name = nameOf(q);
    auto computed = engine.queueStatus(name);
    if (auto it = allocated.find(name); computed && it != allocated.end())
      computed->allocated = it->second;
    const auto* problem = cluster.admissibility->forest().problem(name);
    auto status = renderQueueStatus(q, computed, cluster.names, counts[name], problem, t);
    Json old_status = q.value("status", Json::object());
    if (old_status != status) {
      const bool numbers_only =
          old_status.value("conditions", Json()) == status.value("conditions", Json());
      auto last = written_at_.find(name);
      if (!numbers_only || last == written_at_.end() ||
          t - last->second >= kQueueStatusRefreshSeconds) {
        written_at_[name] = t;
        status_writes.push_back({name, std::move(old_status), std::move(status)});
      }
    }
    if (auto it = specs.find(name); it != specs.end()) {
      const auto& spec = *it->second;
      for (std::size_t slot = 0; slot < cluster.names.size(); ++slot) {
        MetricLabels l{{"queue", name}, {"resource", cluster.names.name(slot)}};
        metrics_.set("troupe_queue_guaranteed", l, static_cast<double>(spec.guaranteed[slot]));
        if (computed) {
          metrics_.set("troupe_queue_fair_share", l,
                       static_cast<double>(computed->fair_share[slot]));
          metrics_.set("troupe_queue_allocated", l, static_cast<double>(computed->allocated[slot]));
        }
        metrics_.set("troupe_queue_pending", l, static_cast<double>(pending_requests[name][slot]));
      }
    }
  }
  writer_.helpers().forEach(status_writes.size(), kWriteWidth, [&](std::size_t i) {
    const auto& w = status_writes[i];
    writer_.patchStatus(kube::resources::kQueues, "", w.queue, w.from, w.to);
  });
}

// A queue that cannot take jobs is logged once at warn, with why; again when that changes,
// and at info when it takes jobs again.
void QueueReconciler::reportUnusableQueues(const ClusterSnapshot& cluster) {
  const auto& problems = cluster.admissibility->forest().problems();
  for (const auto& [name, problem] : problems) {
    std::string why = problem.reason + ": " + problem.error.describe();
    auto [it, added] = unusable_.try_emplace(name, why);
    if (!added && it->second == why) continue;
    it->second = why;
    log::warn("queue cannot take jobs; its jobs wait as Inadmissible",
              {{"queue", name}, {"reason", problem.reason}, {"error", problem.error.describe()}});
  }
  for (auto it = unusable_.begin(); it != unusable_.end();) {
    if (problems.contains(it->first)) {
      ++it;
      continue;
    }
    log::info("queue takes jobs again", {{"queue", it->first}});
    it = unusable_.erase(it);
  }
}

}  // namespace troupe::controllers
