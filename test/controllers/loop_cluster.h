#pragma once

#include <nlohmann/json.hpp>

#include <memory>
#include <string>

#include "apiserver/standalone_server.h"
#include "common/clock.h"
#include "common/helper_pool.h"
#include "common/metrics_registry.h"
#include "controllers/cluster_writer.h"
#include "controllers/event_writer.h"
#include "controllers/informer_caches.h"
#include "controllers/scheduler_loop.h"
#include "kube/event_recorder.h"
#include "kube/rest_kube_client.h"
#include "state/state_database.h"
#include "state/state_store.h"
#include "test/support/temp_dir.h"

// The scheduler loop against a real API: troupe serve's request handler over an in-memory
// object store, with Troupe's CRDs, reached through the loopback as `troupe serve`'s own
// operator reaches it; its state store a SQLite file in a temporary directory. No kubelet
// and no reconciler runs: a test creates the nodes, queues, PodGroups and pods, runs the
// loop's steps itself and reads what the loop wrote back.
namespace troupe::controllers::testing {

using Json = nlohmann::json;

class LoopCluster {
 public:
  LoopCluster();
  ~LoopCluster();

  kube::KubeClient& client() { return *client_; }
  SchedulerLoop& loop() { return *loop_; }
  state::StateDatabase& database() { return *database_; }
  state::StateStore& state() { return *state_; }
  InformerCaches& caches() { return *caches_; }

  // Creates an object (REQUIREd to succeed) and returns it as the server stored it.
  Json create(const kube::ResourceType& type, const Json& object);
  // The object now, from the API; null when it is gone.
  Json get(const kube::ResourceType& type, const std::string& ns, const std::string& name);
  // Deletes a pod at once, as its kubelet does once its containers have stopped.
  void removePod(const std::string& ns, const std::string& name);
  // Waits until every cache holds what the API holds now: a cycle then reads every write
  // made before.
  void waitForCaches();
  // Starts leading, then runs one cycle on caches that hold every write made before.
  void runCycle();

 private:
  troupe::testing::TempDir dir_;
  SystemTimeSource time_;
  MetricsRegistry metrics_;
  std::unique_ptr<apiserver::StandaloneServer> server_;
  std::unique_ptr<kube::RestKubeClient> client_;
  std::unique_ptr<state::StateDatabase> database_;
  std::unique_ptr<state::StateStore> state_;
  std::unique_ptr<HelperPool> helpers_;
  std::unique_ptr<kube::EventRecorder> recorder_;
  std::unique_ptr<InformerCaches> caches_;
  std::unique_ptr<ClusterWriter> writer_;
  std::unique_ptr<EventWriter> events_;
  std::unique_ptr<SchedulerLoop> loop_;
  bool leading_ = false;
};

// Objects as a user writes them, in namespace "default".
Json node(const std::string& name, int gpus);
Json queue(const std::string& name, int guaranteed_gpus);
Json podGroup(const std::string& name, const std::string& queue, int min_member);
// A pod of `group` asking for `gpus` GPUs, with `grace` seconds to stop once deleted.
Json pod(const std::string& name, const std::string& group, int gpus, int grace = 0);

}  // namespace troupe::controllers::testing
