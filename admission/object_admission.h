#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "admission/cluster_view.h"
#include "admission/verdict.h"

// The validating admission of Troupe's objects: what the operator's webhook answers and
// what troupe serve checks on every create, update, patch and apply, after the CRD schema
// (and its CEL rules) passed, as kube-apiserver orders them:
//   1. api/'s rules for the kind (decode, validate, validateUpdate): 422 naming each field;
//   2. rules across objects, which no CRD can state:
//      - a TrainingJob, PodGroup or lone pod (schedulerName troupe, label troupe.dev/queue,
//        no troupe.dev/pod-group) may name only a leaf queue (422), and only one that admits
//        its namespace (403). Checked on create: the queue is immutable. A queue not there
//        yet is allowed (the job waits for it); the scheduler checks again whatever happens
//        later (controllers/gang_admissibility.h). A PodGroup that Troupe makes for a
//        TrainingJob or a lone pod (its controller) was checked through its owner;
//      - a Queue write may not close a cycle, push its parent's children's guarantees past
//        the parent's, or leave its own below its children's (422). A missing parent is
//        allowed: the queue waits for it.
namespace troupe::admission {

enum class Operation { Create, Update };

struct AdmissionRequest {
  Operation operation = Operation::Create;
  std::string kind;  // TrainingJob, PodGroup, Queue or Pod; anything else is allowed
  std::string ns;    // the namespace of the request (empty for Queues)
  const nlohmann::json* object = nullptr;
  const nlohmann::json* old_object = nullptr;  // on Update
};

Verdict admit(const AdmissionRequest& request, const ClusterView& cluster);

// Whether admission has anything to say about a pod: one Troupe schedules alone, naming its
// queue in a label.
bool isLonePodWithQueue(const nlohmann::json& pod);

}  // namespace troupe::admission
