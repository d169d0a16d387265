#pragma once

#include <functional>
#include <map>
#include <string>

#include "controllers/cluster_snapshot.h"
#include "controllers/queue_status.h"
#include "queueing/engine.h"
#include "queueing/resource_vector.h"

namespace troupe::controllers {

// What a cycle's queue statuses and metrics count, per queue.
struct QueueFigures {
  // Each queue with its whole subtree's gangs, as its status.allocated counts its
  // subtree's pods: a parent's running are its children's. A gang that can never be
  // admitted as the queues and nodes are (Inadmissible) is counted apart, not as waiting.
  std::map<std::string, QueueCounts> counts;
  // By leaf queue: what its waiting gangs ask at their minimum size, Inadmissible ones
  // apart (troupe_queue_pending).
  std::map<std::string, queueing::ResourceVector> waiting_requests;
};

// `inadmissible` tells, for a pending gang's key, whether it can never be admitted as things
// are (neverAdmissible below).
QueueFigures queueFigures(const ClusterSnapshot& cluster,
                          const std::function<bool(const std::string&)>& inadmissible);

// Whether a pending gang of `cluster` can never be admitted as the queues and nodes are: the
// engine finds it Inadmissible, or it may not use its queue (GangAdmissibility: left out of
// the engine, or naming a queue that cannot take jobs, which the engine finds no leaf for).
// Both wait with the reason Inadmissible.
std::function<bool(const std::string&)> neverAdmissible(const ClusterSnapshot& cluster,
                                                        const queueing::Engine& engine);

}  // namespace troupe::controllers
