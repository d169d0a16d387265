#include "controllers/change_routes.h"

#include <chrono>
#include <functional>

#include "api/well_known.h"
#include "controllers/cycle_request.h"
#include "controllers/informer_caches.h"
#include "controllers/lone_pod.h"
#include "controllers/object_json.h"
#include "controllers/scheduling_inputs.h"
#include "controllers/work_item.h"
#include "kube/work_queue.h"

namespace troupe::controllers {
namespace {

using kube::ObjectPtr;

// How long a pod's event waits for its siblings' before its job and group are reconciled.
constexpr std::chrono::milliseconds kPodEventCoalescing{100};

// The same handler for adds, updates (the new object) and deletes.
kube::InformerHandlers onEveryChange(const std::function<void(const ObjectPtr&)>& handler) {
  return {handler, [handler](const ObjectPtr&, const ObjectPtr& n) { handler(n); }, handler};
}

// The TrainingJob that controls `object`, if one does.
void queueOwningJob(kube::WorkQueue& queue, const Json& object) {
  auto owner = controllerOf(object);
  if (owner && owner->kind == api::kTrainingJobKind)
    queue.add(trainingJobItem(namespaceOf(object) + "/" + owner->name));
}

}  // namespace

void routeChanges(InformerCaches& caches, kube::WorkQueue& queue, CycleRequest& cycle) {
  // A pod's event reconciles its job and group a moment later: a gang's pods are bound,
  // start and finish together, and one reconcile (one status write) then covers the
  // burst instead of one per member. The scheduling cycle is not delayed.
  auto onPod = [&queue, &cycle](const ObjectPtr& p, bool schedule) {
    auto job = label(*p, api::kJobNameLabel);
    if (!job.empty())
      queue.addAfter(trainingJobItem(namespaceOf(*p) + "/" + job), kPodEventCoalescing);
    auto group = podGroupName(*p);
    if (!group.empty())
      queue.addAfter(podGroupItem(namespaceOf(*p) + "/" + group), kPodEventCoalescing);
    if (schedule) cycle.ask();
  };
  caches.pods().addHandlers(
      {[onPod](const ObjectPtr& p) { onPod(p, true); },
       [onPod](const ObjectPtr& o, const ObjectPtr& n) { onPod(n, podUpdateMatters(*o, *n)); },
       [onPod](const ObjectPtr& p) { onPod(p, true); }});

  auto onJob = [&queue](const ObjectPtr& j) { queue.add(trainingJobItem(keyOf(*j))); };
  // A new job's first reconcile (its PodGroup and pods) goes ahead of the status
  // bookkeeping of older jobs: it is what its user, and a reclaim, waits for.
  auto onNewJob = [&queue](const ObjectPtr& j) { queue.addFirst(trainingJobItem(keyOf(*j))); };
  caches.trainingJobs().addHandlers(
      {onNewJob, [onJob](const ObjectPtr&, const ObjectPtr& n) { onJob(n); }, onJob});

  auto onGroup = [&queue, &cycle](const ObjectPtr& g, bool schedule) {
    queue.add(podGroupItem(keyOf(*g)));
    queueOwningJob(queue, *g);
    if (schedule) cycle.ask();
  };
  caches.podGroups().addHandlers({[onGroup](const ObjectPtr& g) { onGroup(g, true); },
                                  [onGroup](const ObjectPtr& o, const ObjectPtr& n) {
                                    onGroup(n, podGroupUpdateMatters(*o, *n));
                                  },
                                  [onGroup](const ObjectPtr& g) { onGroup(g, true); }});

  auto ask = [&cycle](const ObjectPtr&) { cycle.ask(); };
  caches.nodes().addHandlers({ask,
                              [&cycle](const ObjectPtr& o, const ObjectPtr& n) {
                                if (nodeUpdateMatters(*o, *n)) cycle.ask();
                              },
                              ask});
  caches.queues().addHandlers({ask,
                               [&cycle](const ObjectPtr& o, const ObjectPtr& n) {
                                 if (queueUpdateMatters(*o, *n)) cycle.ask();
                               },
                               ask});
  caches.priorityClasses().addHandlers(onEveryChange(ask));
  caches.gpuTypes().addHandlers(onEveryChange(ask));
  // A namespace's labels decide which queues admit its gangs (a Queue's namespaceSelector).
  caches.namespaces().addHandlers({ask,
                                   [&cycle](const ObjectPtr& o, const ObjectPtr& n) {
                                     if (o->value(Json::json_pointer("/metadata/labels"), Json()) !=
                                         n->value(Json::json_pointer("/metadata/labels"), Json()))
                                       cycle.ask();
                                   },
                                   ask});
  caches.services().addHandlers(
      onEveryChange([&queue](const ObjectPtr& s) { queueOwningJob(queue, *s); }));
}

}  // namespace troupe::controllers
