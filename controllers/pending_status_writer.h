#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "controllers/cluster_snapshot.h"
#include "controllers/pending_status_schedule.h"
#include "kube/object_cache.h"
#include "queueing/decisions.h"
#include "queueing/engine.h"

namespace troupe::kube {
struct ResourceType;
}

// status.pending of each waiting TrainingJob, or of the PodGroup itself when plain pods
// form the gang: the engine's explanation with the numbers (docs/api.md). A lone pod
// (controllers/lone_pod_groups.h) has no group in the API: once it has waited
// kFirstStatusDelaySeconds, its PodScheduled condition says why instead
// (controllers/unschedulable_condition.h), written once a reason. Compared for the gangs whose
// explanation this cycle changed and for those due a refresh (PendingStatusSchedule), and written
// when it differs; a gang that may not use its queue (controllers/gang_admissibility.h) waits as
// Inadmissible, compared every cycle. The scheduling thread's.
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

  struct LoneWrite {
    kube::ObjectPtr pod;
    nlohmann::json patch;  // of its status
  };
  // Notes the lone pod of `gang` waiting as `pending` says; its condition is written when
  // the reason is new to it.
  void noteLoneWait(const std::string& gang, const kube::ObjectPtr& pod,
                    const nlohmann::json& pending, std::int64_t t, std::vector<LoneWrite>& writes);
  // Drops the lone pods no longer waiting.
  void forgetLonePods(const ClusterSnapshot& cluster);

  InformerCaches& caches_;
  ClusterWriter& writer_;
  // The reason each waiting lone pod's condition was last written for, by gang.
  std::map<std::string, std::string> lone_reasons_;
  PendingStatusSchedule schedule_{kPendingRefreshBudget};
};

}  // namespace troupe::controllers
