#pragma once

// A reference model of admission under a queue tree, for tiny clusters: obviously correct
// rather than fast. It reads the rules of docs/scheduling.md and docs/fair-share.md
// literally and tries every victim set, smallest first; the engine's search is greedy and
// incremental, and the property test (quota_model_property_test.cc) holds it to the
// model's answers.
//
// The model covers one pending gang of one pod set (no elastic range, no topology) and
// running gangs of one pod set each, all past any minimum run time, on nodes that are all
// usable. Those are the cases where "could it be admitted, and with which victims" has one
// right answer that a brute force can find.

#include <optional>
#include <string>
#include <vector>

#include "queueing/resource_vector.h"
#include "queueing/snapshot.h"

namespace troupe::queueing::model {

struct Queue {
  std::string name;
  int parent = -1;  // index into World::queues, -1 for the top
  ResourceVector guaranteed;
  ResourceVector limit = ResourceVector::filled(ResourceVector::kUnlimited);
  ResourceVector lending_limit = ResourceVector::filled(ResourceVector::kUnlimited);
  std::int64_t weight = 1;
  bool reclaim = true;
  bool within_queue = true;  // withinQueue: LowerPriority
};

struct Gang {
  std::string name;
  int queue = 0;  // a leaf
  std::int32_t priority = 0;
  ResourceVector pod;      // one pod's request
  std::vector<int> nodes;  // running: each pod's node; pending: empty
  std::int32_t pods = 1;   // pending: how many pods it asks
  bool preemptible = true;
  ResourceVector total() const {
    return pod * (nodes.empty() ? pods : static_cast<std::int64_t>(nodes.size()));
  }
};

struct World {
  std::vector<ResourceVector> nodes;  // allocatable, all usable
  std::vector<Queue> queues;          // parents before children
  std::vector<Gang> running;
  Gang pending;
};

// Where a limit binds: a queue index, or the cluster (lendingLimits at the top).
inline constexpr int kCluster = -1;
inline constexpr int kNowhere = -2;

struct Answer {
  // It can never be admitted: a limit on its path (or the cluster) on an empty cluster, or
  // no placement on empty nodes.
  bool inadmissible = false;
  // Some victim set (possibly none) satisfies every rule, each of its victims needed (the
  // gang would pass a limit or find no room without it).
  bool admissible = false;
  std::size_t min_victims = 0;           // when admissible: the fewest victims
  std::vector<std::size_t> one_minimum;  // one such set (indexes into running)
  // The first level, from the gang's queue up, whose limit it passes with no victim taken
  // (kNowhere when none); on an empty cluster when inadmissible.
  int binding = kNowhere;
};

// The model's answer for w.pending.
Answer admit(const World& w);

// Whether `victims` (indexes into w.running) let w.pending be admitted under every rule;
// "" when they do, else the first rule broken. For checking the engine's own choice.
std::string check(const World& w, const std::vector<std::size_t>& victims);

// The same world for the engine: nodes n0.., queues by name, running gangs with their GPU
// indices assigned from 0 per node in running order; the pending gang submitted at 0.
Snapshot toSnapshot(const World& w, Seconds now);

}  // namespace troupe::queueing::model
