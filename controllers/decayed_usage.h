#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>

#include "controllers/cluster_snapshot.h"
#include "queueing/engine.h"
#include "queueing/resource_vector.h"
#include "state/usage_history.h"

namespace troupe::state {
class StateStore;
}

// Each queue's exponentially decayed usage (queueing/usage.h), which fair share weighs:
// advanced every cycle by what the queue holds, saved in the state store, and mirrored now
// and then into each Queue's troupe.dev/decayed-usage annotation so that a new leader on
// another machine starts from it too (docs/state-store.md). The scheduling thread's.
namespace troupe::controllers {

class ClusterWriter;

class DecayedUsage {
 public:
  DecayedUsage(state::StateStore& state, ClusterWriter& writer,
               std::chrono::seconds mirror_interval);

  // A new leadership's start: the newer of the local copy (`history`, read as is: the
  // caller holds the store) and each of `queues`' annotation; usage advances from `now`.
  void load(state::UsageHistory& history, const ObjectList& queues, std::int64_t now);

  // By leaf queue, by resource name: what a snapshot reads (SnapshotOptions::usage).
  std::map<std::string, std::map<std::string, std::int64_t>> byQueue() const;

  // Advances every queue of the snapshot by the time since the last advance at what it
  // holds (`allocated`, else the engine's allocation), saves them, and mirrors every
  // queue of `queues` when the mirror interval has passed.
  void advance(const queueing::Engine& engine, const ClusterSnapshot& cluster,
               const std::map<std::string, queueing::ResourceVector>& allocated,
               const ObjectList& queues, std::int64_t t);

 private:
  void mirror(const ObjectList& queues, std::int64_t t);

  state::StateStore& state_;
  ClusterWriter& writer_;
  const std::chrono::seconds mirror_interval_;
  std::map<std::string, state::QueueUsage> usage_;
  std::int64_t last_advance_ = 0;
  std::int64_t last_mirror_ = 0;
};

}  // namespace troupe::controllers
