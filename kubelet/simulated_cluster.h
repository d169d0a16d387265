#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "common/result.h"
#include "kube/informer.h"
#include "kube/kube_client.h"
#include "kube/work_queue.h"
#include "kubelet/pod_admission.h"
#include "kubelet/pod_lifecycle.h"
#include "kubelet/sim_clock.h"

// The simulated kubelets of standalone mode (`troupe serve`): one component, a client of
// the API like any kubelet, that plays the kubelet of every Node the server holds.
//
// Two informers (pods, nodes) feed one work queue of keys ("pod/<ns>/<name>",
// "node/<name>") drained by a small pool of workers, so a slow write holds up one worker
// and not the rest. A pod key runs decidePod (kubelet/pod_lifecycle.h) and performs its
// action: a status PUT to pods/<name>/status carrying the resourceVersion it read (on
// 409 Conflict it reads the pod again and decides again), or a DELETE with grace period 0.
// Timed steps come back through the queue's delayed adds. A node key posts the node's
// status (heartbeat, simulated failure; kubelet/node_status.h) and renews its Lease in
// kube-node-lease. When a node's readiness changes, its pods are queued again.
namespace troupe::kubelet {

struct SimulatedClusterOptions {
  SimSpeed speed = SimSpeed::parse(1).value();
  int workers = 8;
  // How often a node's unchanged conditions are posted again with a fresh
  // lastHeartbeatTime (wall clock). The kubelet's nodeStatusReportFrequency defaults to 5
  // minutes since its Lease carries liveness; at 5,000 nodes a 30 s period cost the API
  // 167 full Node writes a second on top of 500 Lease renewals.
  std::chrono::milliseconds node_heartbeat{std::chrono::minutes(5)};
  // How often a node's Lease is renewed (wall clock); 0: no Leases.
  std::chrono::milliseconds lease_renewal{std::chrono::seconds(10)};
  // Attempts of one status write that keeps meeting 409 Conflict.
  int conflict_attempts = 5;
};

// Counters for logs and tests.
struct SimulatedClusterStats {
  std::uint64_t started = 0;      // pods reported Running
  std::uint64_t exited = 0;       // pods reported Succeeded or Failed at the end of their run
  std::uint64_t node_lost = 0;    // pods failed because their node failed
  std::uint64_t rejected = 0;     // pods failed because their node could not admit them
  std::uint64_t removed = 0;      // pods deleted after termination
  std::uint64_t conflicts = 0;    // 409s met (and retried)
  std::uint64_t errors = 0;       // other failed writes (retried with backoff)
  std::uint64_t node_writes = 0;  // node status writes
};

class SimulatedCluster {
 public:
  SimulatedCluster(kube::KubeClient& client, SimulatedClusterOptions options,
                   const TimeSource& clock);
  ~SimulatedCluster();  // stops
  SimulatedCluster(const SimulatedCluster&) = delete;
  SimulatedCluster& operator=(const SimulatedCluster&) = delete;

  // Starts the informers, waits until both have listed (at most `sync_timeout`), then
  // starts the workers. An error when the informers could not list in time.
  Status start(std::chrono::milliseconds sync_timeout = std::chrono::seconds(30));
  // Stops the informers and the workers; no write happens after it returns.
  void stop();

  SimulatedClusterStats stats() const;

 private:
  void work();
  void process(const std::string& key);
  // Each returns false when the key should be retried with backoff.
  bool processPod(const std::string& key);
  bool processNode(const std::string& name);
  bool renewLease(const nlohmann::json& node, Time now);
  // Writes the node's troupe.dev/gpu-holders annotation when its pods hold other GPUs or
  // MIG slices than it says (gpu_holders.h). False on a failed write.
  bool syncGpuHolders(const std::string& node_name);
  NodeHealth healthOf(const std::string& node_name) const;
  PodMemory memoryOf(const nlohmann::json& pod, Time now);
  // The pods still in the API on the node that hold what they asked for: admitted by this
  // kubelet (or running since before it started), not finished. Terminating ones too:
  // their containers run until the kubelet removes them.
  std::vector<kube::ObjectPtr> holdingPods(const std::string& node_name) const;
  // Admits a pod waiting to start on its node, once (kubelet/pod_admission.h); why not
  // when it may not run there.
  std::optional<AdmissionRefusal> admit(const nlohmann::json& pod);
  void queuePodsOf(const std::string& node_name);

  kube::KubeClient& client_;
  const SimulatedClusterOptions options_;
  const TimeSource& clock_;
  kube::Informer nodes_;
  kube::Informer pods_;
  kube::WorkQueue queue_;
  std::vector<std::jthread> workers_;
  std::atomic<bool> running_{false};

  // Held while one pod is admitted: admissions on a node see each other.
  std::mutex admission_mu_;
  mutable std::mutex mu_;
  // Pod UID -> what the kubelet remembers of it; erased when the pod is deleted.
  std::map<std::string, PodMemory> pods_memory_;
  // Nodes deleted while watched: their pods fail (a node never seen leaves pods alone).
  std::set<std::string> deleted_nodes_;
  // Node name -> last successful heartbeat and Lease renewal (wall clock).
  std::map<std::string, Time> last_heartbeat_;
  std::map<std::string, Time> last_lease_;
  bool lease_namespace_ready_ = false;
  SimulatedClusterStats stats_;
};

}  // namespace troupe::kubelet
