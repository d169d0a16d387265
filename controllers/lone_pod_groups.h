#pragma once

#include <string>
#include <vector>

#include "controllers/object_facts.h"
#include "controllers/object_list.h"

// The PodGroups of lone pods (controllers/lone_pod.h) as the scheduling cycle sees them.
//
// A lone pod costs the API its binding and nothing more, as a pod of kube-scheduler does:
// its PodGroup is never written to the API, and a pod that waits says why in its
// PodScheduled condition (controllers/pending_status_writer.h). The cycle reads the group
// it would have, made here from the pod, so the engine sees a gang of one, with the queue,
// priority and submit time a written group would have. Not thread-safe: one
// scheduling loop owns it.
namespace troupe::controllers {

class LonePodGroups {
 public:
  // `groups` (the PodGroups in the API, in key order) with the group of every live lone pod
  // of `pods` that has none there, each in its place by key. `pod_facts` are `pods`' facts.
  // A group made for a version of a pod is handed out again, the same document, while the
  // pod is that version or makes an equal group, so the cycle's facts cache knows it.
  ObjectList complete(const ObjectList& groups, const ObjectList& pods,
                      const FactsCache<PodFacts>& pod_facts);

 private:
  struct Made {
    std::string key;  // "namespace/pod-<uid>"
    ObjectRef pod;    // the version it was made from
    ObjectRef group;
  };
  // In key order: the groups the last complete() made.
  std::vector<Made> made_;
};

}  // namespace troupe::controllers
