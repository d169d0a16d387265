#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "controllers/cluster_snapshot.h"
#include "controllers/engine_loader.h"
#include "queueing/engine.h"

// The scheduler loop's engine, kept from one cycle to the next.
//
// Loading a fresh engine from every snapshot cost as much as building the snapshot: every
// running gang validated, indexed and placed on its nodes again, 33 ms of an 81 ms cycle
// at 35,000 pods, to change one gang. EngineSync keeps one engine and sends it only what
// differs between the new snapshot and what the engine holds. It asks the engine itself
// (Engine::holds) rather than a copy of the last snapshot, so what the engine assumed in
// its last cycle (admissions, preemptions and resizes the runtime may not have carried
// out) is compared like anything else: after sync() the engine holds exactly the
// snapshot's nodes, queues and gangs, as a freshly loaded one would, and its own memory
// between cycles (placement caches, reservations, explanations) is kept for what did not
// change. Two differences from a fresh load, both on purpose:
// - a running gang none of whose pods reported its start keeps the start the engine
//   holds (ClusterSnapshot::running_started), where a fresh load takes `now`;
// - a node that shrank below what the running pods on it hold keeps those pods and counts
//   as full (Engine::upsertNode), where a fresh load refuses the gang whose pod no longer
//   fits and would offer the capacity it still holds to others.
//
// Comparing every gang was most of a sync at 100,000 pods (a lookup by name and a compare
// of its spec each). A gang the snapshot took unchanged from the snapshot synced last
// (ClusterSnapshot::running_recycled, pending_recycled) and that the engine has not changed
// since (Engine::changedGangs: its own decisions) is held as it is, so it is not compared.
//
// A fresh engine is loaded (loadEngine) on the first sync, when the resource slots
// changed (the snapshot's ResourceNames: every vector would mean something else), and when
// the queue tree changed (a queue added, removed or given another parent: the engine
// takes those only in tree order, which a reload gives), and when the engine refuses a
// node or queue (a fresh load leaves it out, with the gangs that need it, where the
// engine would keep its previous spec).
namespace troupe::controllers {

// What one sync() sent.
struct SyncStats {
  bool reloaded = false;
  std::size_t queues = 0;         // queue specs replaced
  std::size_t nodes = 0;          // nodes added, replaced or removed
  std::size_t gangs_removed = 0;  // gone, or to be described again
  std::size_t gangs_added = 0;    // running or pending, new or described again
  std::size_t gangs_unasked = 0;  // recycled and left alone by the engine: not compared
};

class EngineSync {
 public:
  explicit EngineSync(queueing::Policy policy);

  // Brings the engine to `cluster`; returns the objects it refused, as loadEngine does
  // (a refused object is offered again on every sync, so it is reported every cycle).
  std::vector<Problem> sync(const ClusterSnapshot& cluster);

  queueing::Engine& engine() { return engine_; }
  const queueing::Engine& engine() const { return engine_; }
  const SyncStats& lastSync() const { return stats_; }

 private:
  std::vector<Problem> reload(const ClusterSnapshot& cluster);

  queueing::Policy policy_;
  queueing::Engine engine_;
  bool loaded_ = false;
  queueing::ResourceNames names_;  // the slots of the vectors the engine holds
  // (name, parent) of every queue of the snapshot the engine was loaded from, in order.
  std::vector<std::pair<std::string, std::string>> queue_tree_;
  // The gang names of the last snapshot synced, sorted: the gangs the engine holds, but
  // for those it refused.
  std::vector<std::string> gang_names_;
  // The last snapshot synced (its pod_reads; 0: none, or one whose refusals went beyond
  // gangs), and the gangs refused then, sorted: those are offered again every sync.
  std::uint64_t synced_reads_ = 0;
  std::vector<std::string> refused_;
  SyncStats stats_;

  // After a sync that brought the engine to `cluster` but for `problems`.
  void synced(const ClusterSnapshot& cluster, const std::vector<Problem>& problems);
};

}  // namespace troupe::controllers
