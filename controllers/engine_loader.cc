#include "controllers/engine_loader.h"

#include <set>

#include "controllers/refused_gang_holds.h"

namespace troupe::controllers {

LoadedEngine loadEngine(const ClusterSnapshot& cluster, queueing::Policy policy) {
  LoadedEngine out{queueing::Engine(std::move(policy)), {}};
  const auto& snap = cluster.snapshot;
  out.engine.reserve(snap.pending.size() + snap.running.size(), snap.nodes.size());
  for (const auto& n : snap.nodes) {
    if (auto s = out.engine.upsertNode(n); !s) out.problems.push_back({"Node", n.name, s.error()});
  }
  // Parents before children; a queue whose parent was refused is refused too.
  std::set<std::string> loaded;
  std::vector<const queueing::QueueSpec*> left;
  for (const auto& q : snap.queues) left.push_back(&q);
  while (!left.empty()) {
    std::vector<const queueing::QueueSpec*> later;
    for (const auto* q : left) {
      if (!q->parent.empty() && !loaded.contains(q->parent)) {
        later.push_back(q);
        continue;
      }
      if (auto s = out.engine.upsertQueue(*q); !s) {
        out.problems.push_back({"Queue", q->name, s.error()});
      } else {
        loaded.insert(q->name);
      }
    }
    if (later.size() == left.size()) {
      for (const auto* q : later) {
        out.problems.push_back(
            {"Queue", q->name,
             Error{ErrorCode::Invalid, "spec.parent", "the parent queue was not accepted"}});
      }
      break;
    }
    left = std::move(later);
  }
  std::vector<Problem> refused;
  for (const auto& r : snap.running) {
    if (auto s = out.engine.addRunning(r); !s)
      refused.push_back({"PodGroup", r.spec.name, s.error()});
  }
  auto held = holdRefusedGangs(out.engine, cluster, refused);
  out.problems.insert(out.problems.end(), refused.begin(), refused.end());
  out.problems.insert(out.problems.end(), held.begin(), held.end());
  for (const auto& g : snap.pending) {
    if (auto s = out.engine.submit(g); !s) out.problems.push_back({"PodGroup", g.name, s.error()});
  }
  return out;
}

}  // namespace troupe::controllers
