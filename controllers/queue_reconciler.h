#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "common/metrics_registry.h"
#include "controllers/cluster_snapshot.h"
#include "queueing/engine.h"
#include "queueing/resource_vector.h"

// Brings every Queue's status to what the last cycle computed (controllers/queue_status.h
// renders it: guaranteed, fair share, allocation, the counts of its gangs, the Ready
// condition), sets the per-queue metrics, and logs a queue that cannot take jobs. Run by the
// scheduler loop after each cycle: a queue's status follows the engine, not an event of its own.
// The scheduling thread's.
namespace troupe::controllers {

class ClusterWriter;

// A Queue's status is written at once when its conditions change, but when only its numbers
// move (its allocation and counts change with every admission: under load, every cycle) at
// most this often. The scheduler loop cycles at least every 2 s, so the numbers are at most
// that much older than this.
inline constexpr std::int64_t kQueueStatusRefreshSeconds = 2;

class QueueReconciler {
 public:
  QueueReconciler(ClusterWriter& writer, MetricsRegistry& metrics);

  // `queues` as the cycle read them; `allocated` by queue, what their pods hold (terminating
  // ones included), in place of what the engine assumed of its decisions.
  void reconcile(const ObjectList& queues, const queueing::Engine& engine,
                 const ClusterSnapshot& cluster,
                 const std::map<std::string, queueing::ResourceVector>& allocated, std::int64_t t);

 private:
  void reportUnusableQueues(const ClusterSnapshot& cluster);

  ClusterWriter& writer_;
  MetricsRegistry& metrics_;
  // Queues that cannot take jobs, as last logged: name -> reason and error.
  std::map<std::string, std::string> unusable_;
  // When each queue's status was last written (seconds): its numbers are written at most
  // every kQueueStatusRefreshSeconds.
  std::map<std::string, std::int64_t> written_at_;
};

}  // namespace troupe::controllers
