#include "controllers/engine_sync.h"

#include <algorithm>
#include <iterator>
#include <string_view>

#include "controllers/refused_gang_holds.h"

namespace troupe::controllers {
namespace {

std::vector<std::pair<std::string, std::string>> queueTree(const ClusterSnapshot& cluster) {
  std::vector<std::pair<std::string, std::string>> out;
  out.reserve(cluster.snapshot.queues.size());
  for (const auto& q : cluster.snapshot.queues) out.emplace_back(q.name, q.parent);
  return out;
}

// The snapshot's gang names, sorted. Its running and pending gangs each come in PodGroup
// key order when the caches list in key order: then a merge sorts them.
std::vector<std::string_view> gangNames(const ClusterSnapshot& cluster) {
  const auto& snap = cluster.snapshot;
  std::vector<std::string_view> running, pending, out;
  running.reserve(snap.running.size());
  for (const auto& r : snap.running) running.push_back(r.spec.name);
  pending.reserve(snap.pending.size());
  for (const auto& g : snap.pending) pending.push_back(g.name);
  for (auto* list : {&running, &pending})
    if (!std::is_sorted(list->begin(), list->end())) std::sort(list->begin(), list->end());
  out.reserve(running.size() + pending.size());
  std::merge(running.begin(), running.end(), pending.begin(), pending.end(),
             std::back_inserter(out));
  return out;
}

}  // namespace

EngineSync::EngineSync(queueing::Policy policy) : policy_(std::move(policy)), engine_(policy_) {}

void EngineSync::synced(const ClusterSnapshot& cluster, const std::vector<Problem>& problems) {
  synced_reads_ = cluster.pod_reads;
  refused_.clear();
  for (const auto& p : problems) {
    if (p.kind != "PodGroup") synced_reads_ = 0;  // what else it kept out is not tracked
    refused_.push_back(p.key);
  }
  std::sort(refused_.begin(), refused_.end());
  engine_.forgetChanges();
}

std::vector<Problem> EngineSync::reload(const ClusterSnapshot& cluster) {
  auto loaded = loadEngine(cluster, policy_);
  engine_ = std::move(loaded.engine);
  engine_.trackChanges();
  loaded_ = true;
  names_ = cluster.names;
  queue_tree_ = queueTree(cluster);
  auto names = gangNames(cluster);
  gang_names_.assign(names.begin(), names.end());
  stats_ = SyncStats{};
  stats_.reloaded = true;
  stats_.nodes = cluster.snapshot.nodes.size();
  stats_.gangs_added = cluster.snapshot.running.size() + cluster.snapshot.pending.size();
  synced(cluster, loaded.problems);
  return std::move(loaded.problems);
}

std::vector<Problem> EngineSync::sync(const ClusterSnapshot& cluster) {
  if (!loaded_ || !(cluster.names == names_) || queueTree(cluster) != queue_tree_)
    return reload(cluster);
  const auto& snap = cluster.snapshot;
  std::vector<Problem> problems;
  stats_ = SyncStats{};

  // Queues: the tree is unchanged, so only specs (quotas, rules, decayed usage) move.
  for (const auto& q : snap.queues) {
    if (engine_.holds(q)) continue;
    ++stats_.queues;
    // Refused: a fresh load leaves the queue out, where the engine would keep the old spec.
    if (!engine_.upsertQueue(q)) return reload(cluster);
  }

  // Gangs that need no asking: taken unchanged from the snapshot synced last, not refused
  // then, and not changed by the engine since.
  const bool from_synced = cluster.recycled_from != 0 && cluster.recycled_from == synced_reads_;
  const auto changed = from_synced ? engine_.changedGangs() : std::vector<std::string>{};
  auto unasked = [&](const std::vector<bool>& recycled, std::size_t i, const std::string& name) {
    if (!from_synced || i >= recycled.size() || !recycled[i]) return false;
    if (std::binary_search(changed.begin(), changed.end(), name) ||
        std::binary_search(refused_.begin(), refused_.end(), name))
      return false;
    ++stats_.gangs_unasked;
    return true;
  };

  // Gangs the engine holds otherwise than the snapshot: removed now, added back below.
  std::vector<const queueing::RunningGang*> add_running;
  std::vector<const queueing::GangSpec*> add_pending;
  auto differs = [&](const std::string& name) {
    if (engine_.isPending(name) || engine_.isRunning(name)) {
      (void)engine_.remove(name);
      ++stats_.gangs_removed;
    }
  };
  for (std::size_t i = 0; i < snap.running.size(); ++i) {
    const auto& r = snap.running[i];
    // A gang none of whose pods reported its start keeps the start the engine holds (its
    // admission, or the first sync that saw it running): the snapshot's stand-in is `now`.
    const bool started = i >= cluster.running_started.size() || cluster.running_started[i];
    if (unasked(cluster.running_recycled, i, r.spec.name) || engine_.holdsRunning(r, started))
      continue;
    differs(r.spec.name);
    add_running.push_back(&r);
  }
  for (std::size_t i = 0; i < snap.pending.size(); ++i) {
    const auto& g = snap.pending[i];
    if (unasked(cluster.pending_recycled, i, g.name) || engine_.holdsPending(g)) continue;
    differs(g.name);
    add_pending.push_back(&g);
  }
  // Gangs the snapshot no longer has (finished, deleted, waiting for pods again): the
  // names of the last sync that this one lacks.
  auto names = gangNames(cluster);
  std::vector<std::string_view> gone;
  std::set_difference(gang_names_.begin(), gang_names_.end(), names.begin(), names.end(),
                      std::back_inserter(gone));
  for (const auto name : gone) {
    const std::string key(name);
    if (!engine_.isPending(key) && !engine_.isRunning(key)) continue;  // refused before
    (void)engine_.remove(key);
    ++stats_.gangs_removed;
  }
  gang_names_.assign(names.begin(), names.end());

  // Nodes, once the gangs that left them are gone.
  std::size_t nodes_kept = 0;
  for (const auto& n : snap.nodes) {
    if (engine_.holds(n)) {
      ++nodes_kept;
      continue;
    }
    ++stats_.nodes;
    // Refused: as for a queue, and the gangs on it are refused with it.
    if (!engine_.upsertNode(n)) return reload(cluster);
  }
  if (engine_.nodeCount() != nodes_kept + stats_.nodes) {
    std::vector<std::string_view> wanted;
    wanted.reserve(snap.nodes.size());
    for (const auto& n : snap.nodes) wanted.push_back(n.name);
    std::sort(wanted.begin(), wanted.end());
    for (const auto& name : engine_.nodeNames()) {
      if (std::binary_search(wanted.begin(), wanted.end(), std::string_view(name))) continue;
      ++stats_.nodes;
      if (!engine_.removeNode(name)) return reload(cluster);
    }
  }

  // Running gangs before pending ones, as a fresh load adds them.
  for (const auto* r : add_running) {
    ++stats_.gangs_added;
    if (auto s = engine_.addRunning(*r); !s)
      problems.push_back({"PodGroup", r->spec.name, s.error()});
  }
  // The pods of a running gang the engine refused hold their nodes all the same. (A gang
  // refused once is offered again every sync, so each sync finds all of them here.)
  for (auto& p : holdRefusedGangs(engine_, cluster, problems)) {
    stats_.nodes += 1;
    problems.push_back(std::move(p));
  }
  for (const auto* g : add_pending) {
    ++stats_.gangs_added;
    if (auto s = engine_.submit(*g); !s) problems.push_back({"PodGroup", g->name, s.error()});
  }
  synced(cluster, problems);
  return problems;
}

}  // namespace troupe::controllers
