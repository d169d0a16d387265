#pragma once

#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "common/metrics_registry.h"
#include "common/result.h"
#include "controllers/cluster_writer.h"

namespace troupe::kube {
class KubeClient;
class LeaderElector;
}  // namespace troupe::kube
namespace troupe::state {
class StateDatabase;
}
namespace troupe::admission {
class ClusterView;
}

// The Troupe operator's runtime: it owns the controllers (controllers/: the informer
// caches, the cluster writer, the scheduler loop and the reconcilers) and runs them on its
// threads: one control thread that runs the scheduling cycle (on events, on a timer, and
// when the engine says something new is due), reconcile workers that bring TrainingJobs and
// PodGroups to their specs from a rate-limited work queue, and leader election on a Lease;
// it starts and stops them. It talks to the API only through a KubeClient, so `troupe
// operator` (against a real cluster) and `troupe serve` (in-process, against its own API)
// run the same code. docs/operator.md describes it for users.
namespace troupe::operator_runtime {

// Connections the operator's client keeps open: the cycle's bindings beside the reconcile
// workers' writes (controllers/cluster_writer.h). A request beyond the idle pool opens a
// connection of its own and pays a TLS handshake.
inline constexpr int kClientConnections =
    static_cast<int>(controllers::kBindWidth + 2 * controllers::kWriteWidth);

struct OperatorOptions {
  std::filesystem::path state_dir;
  bool leader_elect = true;
  std::string leader_election_namespace = "default";
  std::string leader_election_id = "troupe-operator";
  std::string identity;  // empty: "<hostname>_<random>"
  std::vector<std::string> topology_levels = {"troupe.dev/block", "troupe.dev/rack"};
  // A scheduling cycle runs at most this often on events, and at least this often anyway.
  std::chrono::milliseconds min_cycle_gap{200};
  std::chrono::milliseconds cycle_interval{2000};
  // Threads reconciling TrainingJobs and PodGroups beside the scheduling thread.
  int reconcile_workers = 8;
  // How often decayed usage is mirrored into the Queues' troupe.dev/decayed-usage annotation.
  std::chrono::seconds usage_mirror_interval{60};
  std::chrono::seconds lease_duration{15};
  std::chrono::seconds renew_deadline{10};
  std::chrono::seconds retry_period{2};
};

class Operator {
 public:
  // Opens the state store; starts nothing.
  static Result<std::unique_ptr<Operator>> create(kube::KubeClient& client, OperatorOptions options,
                                                  const TimeSource& time);
  ~Operator();  // stop()
  Operator(const Operator&) = delete;
  Operator& operator=(const Operator&) = delete;

  // Starts the informers, leader election and the control thread.
  void start();
  // Graceful: the control thread finishes the action in hand (a gang's bindings are never
  // left half done), informers stop, the lease is released so a standby takes over at once.
  void stop();

  // Every informer has listed once.
  bool synced() const;
  // This replica leads (always, without leader election) and acts.
  bool leading() const;
  // /readyz: this replica can lead (its caches are synced).
  bool ready() const { return synced(); }
  MetricsRegistry& metrics() { return metrics_; }
  // The Queues and Namespaces of the caches, as admission reads them (the webhook).
  const admission::ClusterView& clusterView() const;
  // Scheduling cycles run so far (tests wait on it).
  std::int64_t cycles() const;

 private:
  struct Controllers;
  Operator(kube::KubeClient& client, OperatorOptions options, const TimeSource& time,
           std::unique_ptr<state::StateDatabase> db);
  void startElection();
  void controlLoop(std::stop_token stop);
  void reconcileLoop(std::stop_token stop);

  kube::KubeClient& client_;
  const OperatorOptions options_;
  const TimeSource& time_;
  MetricsRegistry metrics_;
  std::unique_ptr<state::StateDatabase> db_;
  std::unique_ptr<Controllers> controllers_;
  std::unique_ptr<kube::LeaderElector> elector_;
  std::atomic<bool> leading_{false};
  // The reconcile workers act only while this replica leads and has recovered.
  std::atomic<bool> acting_{false};
  std::mutex lifecycle_mu_;
  bool started_ = false;
  std::jthread elector_thread_;
  std::jthread control_thread_;
  std::vector<std::jthread> workers_;
};

}  // namespace troupe::operator_runtime
