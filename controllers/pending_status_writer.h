#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

#include "controllers/cluster_snapshot.h"
#include "controllers/pending_status_schedule.h"
#include "kube/object_cache.h"
#include "queueing/decisions.h"
#include "queueing/engine.h"

namespace troupe::kube {
struct ResourceType;
}

// status.pending of each waiting TrainingJob, or of the PodGroup itself when plain pods
// form the gang (a lone pod's group is written to the API first, once the pod has waited
// kFirstStatusDelaySeconds, controllers/lone_pod_groups.h): the engine's explanation with the
// numbers (docs/api.md). Compared for the gangs whose explanation this cycle changed and for those
// due a refresh (PendingStatusSchedule), and written when it differs; a gang that may not use its
// queue (controllers/gang_admissibility.h) waits as Inadmissible, compared every cycle. The
// scheduling thread's.
namespace troupe::controllers {

class ClusterWriter;
class InformerCaches;

// A waiting job's status.pending is rewritten at once when its reason changes, but when
// only its numbers move (the queue's allocation changes with every admission) at most this
// often: with thousands of jobs waiting, rewriting each one every cycle would take more of
// the API's write capacity than the bindings themselves.
inline constexpr std::int64_t kPendingRefreshSeconds = 10;
// At most this many waiting jobs a cycle are compared for the refresh (on top of those whose
// explanation changed): 2,000 of them cost about 30 ms of CPU.
inline constexpr std::size_t kPendingRefreshBudget = 2000;

class PendingStatusWriter {
 public:
  PendingStatusWriter(InformerCaches& caches, ClusterWriter& writer);

  void write(const queueing::Engine& engine, const queueing::Decisions& decisions,
             const ClusterSnapshot& cluster, std::int64_t t);
  // A new engine names every waiting gang afresh.
  void clear() { schedule_.clear(); }

 private:
  // Where a gang's status.pending goes: its TrainingJob, or the group of plain pods.
  std::pair<const kube::ResourceType*, kube::ObjectPtr> pendingTarget(
      const kube::ObjectPtr& pg) const;

  InformerCaches& caches_;
  ClusterWriter& writer_;
  PendingStatusSchedule schedule_{kPendingRefreshBudget};
};

}  // namespace troupe::controllers
