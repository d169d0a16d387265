#pragma once

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "controllers/cluster_snapshot.h"

// A small cluster as the API server holds it, and what its kubelets and a TrainingJob-like
// controller do to it, one simulated second at a time: the world a property test drives
// the scheduler loop's planning against, thousands of steps a second.
//
// - The API: nodes, queues, PodGroups and pods as JSON documents, a new shared document
//   for every change (as the informer caches hold them), listed in key order.
// - Deletion as the API server does it: a bound pod that has not finished, with a grace
//   period, gets deletionTimestamp and stays until its kubelet removes it; others go at
//   once.
// - The kubelets: a bound pod on a Ready node runs a second later and succeeds after its
//   duration; a pod being deleted is removed after its termination time (at most its
//   grace period); a node that fails fails its pods (NodeLost).
// - The gangs' controller: a gang with a failed pod restarts (every pod deleted); missing
//   pods <gang>-<i> are created, unbound, once their names are free; a gang whose pods all
//   succeeded is finished.
// - Pods of another scheduler, bound to GPUs no pod holds, come and go.
namespace troupe::controllers::testing {

class ClusterModel {
 public:
  struct GangShape {
    std::string name;
    std::string queue;
    int pods = 1;
    int min_pods = 1;  // below `pods`: elastic
    int gpus = 1;      // per pod
    int ib = 0;        // example.com/ib per pod
    std::int32_t priority = 0;
    int duration = 10;    // seconds each pod runs
    int grace = 30;       // terminationGracePeriodSeconds (0: deleted at once)
    int termination = 3;  // seconds from its delete to its containers' exit
  };

  ClusterModel(int nodes, int gpus_per_node, int ib_per_node);

  // Everything as the caches would list it.
  ApiObjects objects() const;
  std::int64_t now() const { return now_; }

  // The API, as clients call it.
  void addQueue(const std::string& name, const std::string& parent, int guaranteed_gpus);
  void submit(const GangShape& shape);
  // Deletes the pod if it is still the one with `uid`; false when it is gone.
  bool deletePod(const std::string& ns, const std::string& name, const std::string& uid);
  // Binds the pod (if still there and unbound) to `node` on `gpus`; false otherwise.
  bool bind(const std::string& ns, const std::string& name, const std::string& node,
            const std::vector<int>& gpus);
  // Whether a pod of this name and uid is still in the API.
  bool exists(const std::string& ns, const std::string& name, const std::string& uid) const;

  // One simulated second of kubelets and controllers.
  void tick(std::mt19937_64& rng);
  void failNode(const std::string& node);
  void recoverNode(const std::string& node);
  // A pod of another scheduler on free GPUs of some node, for `seconds`.
  void addForeignPod(std::mt19937_64& rng, int seconds);

  // Every way a node is over-committed: a GPU index held by two pods, or a resource whose
  // holding pods ask more than the node's allocatable. Holding: bound, not finished, in
  // the API (being deleted or not).
  std::vector<std::string> overcommitted() const;
  // What the gangs' pods hold per queue (bound, not finished), each queue with its
  // children's: what a queue's allocation must be.
  // By queue, by resource name (CPU in millicores); zero amounts left out.
  std::map<std::string, std::map<std::string, std::int64_t>> heldByQueue() const;
  // Whether every pod of a gang named by this key is being deleted.
  bool allTerminating(const std::string& gang_key) const;
  std::vector<std::string> nodeNames() const;
  // One line a pod, for a failure's message.
  std::string describe() const;

  struct Counts {
    std::size_t bindings = 0, deletions = 0, graceful = 0, restarts = 0, finished = 0;
  };
  const Counts& counts() const { return counts_; }

 private:
  struct PodSim {
    int duration = 10;
    int grace = 30;
    int termination = 3;
    std::int64_t started = -1;
    std::int64_t deleted = -1;
    std::int64_t foreign_until = -1;  // a pod of another scheduler: deleted then
  };
  struct Gang {
    GangShape shape;
    bool finished = false;
  };

  nlohmann::json& edit(std::map<std::string, ObjectRef>& in, const std::string& key,
                       nlohmann::json& scratch);
  void put(std::map<std::string, ObjectRef>& in, const std::string& key, nlohmann::json object);
  void createPod(const Gang& gang, int index);
  void erasePod(const std::string& key);
  bool nodeReady(const std::string& node) const;

  std::int64_t now_ = 1'000'000;
  std::uint64_t next_uid_ = 1;
  std::map<std::string, ObjectRef> nodes_, queues_, groups_, pods_;  // by cache key
  std::map<std::string, PodSim> sims_;                               // by pod key
  std::map<std::string, Gang> gangs_;                                // by group key
  std::map<std::string, std::string> queue_parent_;
  Counts counts_;
};

}  // namespace troupe::controllers::testing
