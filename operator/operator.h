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

namespace troupe::kube {
class KubeClient;
class Informer;
class LeaderElector;
class WorkQueue;
}  // namespace troupe::kube
namespace troupe::state {
class StateDatabase;
}
namespace troupe::admission {
class ClusterView;
}

// The Troupe operator: informer caches fed by list and watch, reconcile workers that
// bring TrainingJobs and PodGroups to their specs from a rate-limited work queue, one
// control thread that runs the scheduling cycle (on events, on a timer, and when the
// engine says something new is due), leader election on a Lease, and the state store. It talks to
// the API only through a KubeClient, so `troupe operator` (against a real cluster) and `troupe
// serve` (in-process, against its own API) run the same code. docs/operator.md describes it for
// users.
namespace troupe::operator_runtime {

// Bindings of one cycle in flight at once, over every gang the cycle admits. The server
// makes writes durable in group commits, so the more are in flight the more share each
// fsync. Draining 20,000 pending pods on 5,000 nodes (`troupe bench scheduler --workload
// pods --backlog 20000`), 32 at once bound 2,350-2,800 pods a second (3 runs), 128 at once
// 3,340-4,300 (7 runs).
inline constexpr std::size_t kBindWidth = 128;
// Writes of one reconcile or one cycle step (a gang's pods, its deletions, status writes)
// in flight at once. Each write waits for the server to make it durable; issued together
// they share the server's commits.
inline constexpr std::size_t kWriteWidth = 16;
// Connections the operator's client keeps open: the cycle's bindings beside the reconcile
// workers' writes. A request beyond the idle pool opens a connection of its own and pays a
// TLS handshake.
inline constexpr int kClientConnections = static_cast<int>(kBindWidth + 2 * kWriteWidth);

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
  std::int64_t cycles() const { return cycles_.load(); }

 private:
  struct Runtime;
  Operator(kube::KubeClient& client, OperatorOptions options, const TimeSource& time,
           std::unique_ptr<state::StateDatabase> db);
  void controlLoop(std::stop_token stop);
  void reconcileLoop(std::stop_token stop);

  kube::KubeClient& client_;
  const OperatorOptions options_;
  const TimeSource& time_;
  MetricsRegistry metrics_;
  std::unique_ptr<state::StateDatabase> db_;
  std::unique_ptr<Runtime> runtime_;
  std::atomic<bool> leading_{false};
  std::atomic<std::int64_t> cycles_{0};
  std::mutex lifecycle_mu_;
  bool started_ = false;
  std::jthread elector_thread_;
  std::jthread control_thread_;
  std::vector<std::jthread> workers_;
};

}  // namespace troupe::operator_runtime
