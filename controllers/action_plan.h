#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "controllers/cluster_snapshot.h"
#include "queueing/decisions.h"
#include "state/admission_journal.h"

// What the scheduler loop does with one cycle's decisions, as plain data: the bindings
// of each admitted gang (whole, or not at all), the pods to evict, and the events to
// record. Planning is pure, so it is tested without a server; the runtime carries it out.
namespace troupe::controllers {

struct PodDeletion {
  std::string ns;
  std::string pod;
  std::string uid;  // delete precondition: never delete a newer pod of the same name
  std::string gang;
  std::string reason;  // "Preempted", "Shrunk", "RolledBack"
};

// A Kubernetes Event about a PodGroup (the TrainingJob controller re-targets events of
// groups it owns to the job).
struct EventRecord {
  std::string gang;  // "namespace/podgroup"
  std::string type;  // "Normal" | "Warning"
  std::string reason;
  std::string message;
  // Recorded only once the gang's bindings of this cycle are all made: an admission (or a
  // growth) that waits for its victims to go is decided again by a later cycle, and
  // recorded then, once.
  bool on_binding = false;
};

struct PreemptionNotice {
  std::string gang;
  std::string preemptor;
  std::string reason;  // "Reclaim" | "WithinQueue"
};

// A pod by name, with the uid that tells it from a newer pod of the same name.
struct PodRef {
  std::string ns;
  std::string pod;
  std::string uid;
};

struct ActionPlan {
  // One record per admitted gang and per grown gang; each is journaled before its first
  // binding.
  std::vector<state::AdmissionRecord> bindings;
  std::vector<PodDeletion> deletions;  // preemption victims first, then shrinks
  std::vector<PreemptionNotice> preempted;
  // By admitted or grown gang: the pods that must be gone from the API before its bindings
  // are carried out, because they may still hold capacity the engine placed it on (pods
  // this cycle preempted or shrank on its nodes, terminating pods on its GPUs: their
  // containers may hold the GPUs for a whole grace period). A gang absent here binds at
  // once (controllers/pods_in_the_way.h).
  std::map<std::string, std::vector<PodRef>> making_room;
  // One per happening to a gang: an admission, a resize, a preemption of it, and for each
  // preemptor one naming every gang it preempts.
  std::vector<EventRecord> events;
  // Decisions that could not be mapped onto pods (a pod vanished since the snapshot): the
  // gang is skipped whole this cycle and the next cycle decides again.
  std::vector<Problem> skipped;
};

ActionPlan planActions(const queueing::Decisions& decisions, const ClusterSnapshot& cluster,
                       std::int64_t now);

}  // namespace troupe::controllers
