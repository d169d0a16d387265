#include "kubelet/simulated_cluster.h"

#include "api/well_known.h"
#include "common/json_member.h"
#include "common/log.h"
#include "common/thread_name.h"
#include "kubelet/gpu_holders.h"
#include "kubelet/node_status.h"
#include "kubelet/pod_status.h"

namespace troupe::kubelet {

namespace {

using json = nlohmann::json;
namespace res = kube::resources;

constexpr std::string_view kPodPrefix = "pod/";
constexpr std::string_view kNodePrefix = "node/";
// A node whose troupe.dev/gpu-holders may be out of date: queued as its pods come, change
// phase and go, so that the annotation follows them (gpu_holders.h).
constexpr std::string_view kGpuHoldersPrefix = "gpu-holders/";

std::string nodeNameOf(const json& pod) { return objectMember(pod, "spec").value("nodeName", ""); }

kube::WriteOptions writeOptions() {
  kube::WriteOptions options;
  options.field_manager = "troupe-kubelet";
  return options;
}

kube::InformerOptions informerOptions() {
  kube::InformerOptions options;
  options.page_size = 500;
  return options;
}

// What of a node decides its pods' fate: readiness and the failure flag.
bool podsCare(const json& old_node, const json& new_node) {
  return nodeHealth(old_node) != nodeHealth(new_node) ||
         failureRequested(old_node) != failureRequested(new_node);
}

}  // namespace

SimulatedCluster::SimulatedCluster(kube::KubeClient& client, SimulatedClusterOptions options,
                                   const TimeSource& clock)
    : client_(client),
      options_(std::move(options)),
      clock_(clock),
      nodes_(client, res::kNodes, "", informerOptions()),
      pods_(client, res::kPods, "", informerOptions()) {
  pods_.addIndex("node", kube::indexByNodeName());
  auto queue_pod = [this](const kube::ObjectPtr& pod) {
    if (nodeNameOf(*pod).empty()) return;
    queue_.add(std::string(kPodPrefix) + kube::objectKey(*pod));
    queue_.add(std::string(kGpuHoldersPrefix) + nodeNameOf(*pod));
  };
  pods_.addHandlers({.on_add = queue_pod,
                     .on_update = [queue_pod](const kube::ObjectPtr&,
                                              const kube::ObjectPtr& pod) { queue_pod(pod); },
                     .on_delete =
                         [this](const kube::ObjectPtr& pod) {
                           {
                             std::lock_guard lock(mu_);
                             pods_memory_.erase(metaString(*pod, "uid"));
                           }
                           if (!nodeNameOf(*pod).empty())
                             queue_.add(std::string(kGpuHoldersPrefix) + nodeNameOf(*pod));
                         }});
  nodes_.addHandlers({.on_add =
                          [this](const kube::ObjectPtr& node) {
                            std::string name = metaString(*node, "name");
                            {
                              std::lock_guard lock(mu_);
                              deleted_nodes_.erase(name);
                            }
                            queue_.add(std::string(kNodePrefix) + name);
                            queue_.add(std::string(kGpuHoldersPrefix) + name);
                            queuePodsOf(name);
                          },
                      .on_update =
                          [this](const kube::ObjectPtr& old_node, const kube::ObjectPtr& node) {
                            std::string name = metaString(*node, "name");
                            queue_.add(std::string(kNodePrefix) + name);
                            if (!podsCare(*old_node, *node)) return;
                            queuePodsOf(name);
                            // A kubelet back from a failure says again who holds what.
                            queue_.add(std::string(kGpuHoldersPrefix) + name);
                          },
                      .on_delete =
                          [this](const kube::ObjectPtr& node) {
                            std::string name = metaString(*node, "name");
                            {
                              std::lock_guard lock(mu_);
                              deleted_nodes_.insert(name);
                              last_heartbeat_.erase(name);
                              last_lease_.erase(name);
                            }
                            queuePodsOf(name);
                          }});
}

SimulatedCluster::~SimulatedCluster() { stop(); }

Status SimulatedCluster::start(std::chrono::milliseconds sync_timeout) {
  // Nodes first: a pod is only judged once its node's state is known.
  nodes_.start();
  if (!nodes_.waitForSync(sync_timeout)) {
    nodes_.stop();
    return makeError(ErrorCode::Timeout, "", "simulated kubelets: could not list nodes");
  }
  pods_.start();
  if (!pods_.waitForSync(sync_timeout)) {
    stop();
    return makeError(ErrorCode::Timeout, "", "simulated kubelets: could not list pods");
  }
  running_ = true;
  int workers = std::max(1, options_.workers);
  for (int i = 0; i < workers; ++i)
    workers_.emplace_back([this] {
      nameThisThread("kubelet");
      work();
    });
  log::info("simulated kubelets started", {{"nodes", nodes_.cache().size()},
                                           {"pods", pods_.cache().size()},
                                           {"speed", options_.speed.factor()},
                                           {"workers", workers}});
  return {};
}

void SimulatedCluster::stop() {
  pods_.stop();
  nodes_.stop();
  queue_.shutDown();
  workers_.clear();  // joins
  running_ = false;
}

SimulatedClusterStats SimulatedCluster::stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

void SimulatedCluster::work() {
  while (auto key = queue_.get()) {
    process(*key);
    queue_.done(*key);
  }
}

void SimulatedCluster::process(const std::string& key) {
  bool ok = true;
  if (key.rfind(kPodPrefix, 0) == 0) {
    ok = processPod(key.substr(kPodPrefix.size()));
  } else if (key.rfind(kNodePrefix, 0) == 0) {
    ok = processNode(key.substr(kNodePrefix.size()));
  } else if (key.rfind(kGpuHoldersPrefix, 0) == 0) {
    ok = syncGpuHolders(key.substr(kGpuHoldersPrefix.size()));
  }
  if (ok) {
    queue_.forget(key);
  } else {
    queue_.addRateLimited(key);
  }
}

void SimulatedCluster::queuePodsOf(const std::string& node_name) {
  for (const auto& pod : pods_.cache().byIndex("node", node_name))
    queue_.add(std::string(kPodPrefix) + kube::objectKey(*pod));
}

NodeHealth SimulatedCluster::healthOf(const std::string& node_name) const {
  {
    std::lock_guard lock(mu_);
    if (deleted_nodes_.count(node_name)) return NodeHealth::Deleted;
  }
  auto node = nodes_.cache().get(node_name);
  if (!node) return NodeHealth::Unknown;
  return nodeHealth(*node);
}

std::vector<kube::ObjectPtr> SimulatedCluster::holdingPods(const std::string& node_name) const {
  const auto on_node = pods_.cache().byIndex("node", node_name);
  std::vector<kube::ObjectPtr> out;
  std::lock_guard lock(mu_);
  for (const auto& pod : on_node) {
    const std::string phase = objectMember(*pod, "status").value("phase", "");
    if (phase == "Succeeded" || phase == "Failed") continue;
    auto memory = pods_memory_.find(metaString(*pod, "uid"));
    if ((memory != pods_memory_.end() && memory->second.admitted) || phase == "Running")
      out.push_back(pod);
  }
  return out;
}

PodMemory SimulatedCluster::memoryOf(const json& pod, Time now) {
  std::lock_guard lock(mu_);
  auto [it, inserted] = pods_memory_.try_emplace(metaString(pod, "uid"));
  if (inserted) it->second.first_seen_bound = now;
  return it->second;
}

std::optional<AdmissionRefusal> SimulatedCluster::admit(const json& pod) {
  std::lock_guard admission(admission_mu_);
  const std::string uid = metaString(pod, "uid");
  {
    std::lock_guard lock(mu_);
    auto it = pods_memory_.find(uid);
    if (it != pods_memory_.end() && it->second.admitted) return std::nullopt;
  }
  const std::string node_name = nodeNameOf(pod);
  kube::ObjectPtr node = nodes_.cache().get(node_name);
  if (!node) return std::nullopt;  // not a node this kubelet knows: the pod waits
  const auto holding = holdingPods(node_name);
  std::vector<const json*> admitted;
  for (const auto& other : holding)
    if (metaString(*other, "uid") != uid) admitted.push_back(other.get());
  auto refusal = refuseAdmission(pod, *node, admitted);
  if (!refusal) {
    std::lock_guard lock(mu_);
    pods_memory_[uid].admitted = true;
  }
  return refusal;
}

bool SimulatedCluster::processPod(const std::string& key) {
  kube::ObjectPtr cached = pods_.cache().get(key);
  if (!cached) return true;
  // Read in place from the informer's cache; only a conflict replaces it with a fresh read.
  for (int attempt = 0; attempt < options_.conflict_attempts; ++attempt) {
    const json& pod = *cached;
    Time now = clock_.now();
    std::string name = metaString(pod, "name");
    kube::ObjectRef ref{res::kPods, metaString(pod, "namespace"), name, ""};
    PodDecision decision =
        decidePod(pod, healthOf(nodeNameOf(pod)),
                  nodeNameOf(pod).empty() ? PodMemory{} : memoryOf(pod, now), now, options_.speed);
    // A pod about to start is admitted on its node first, as a kubelet admits a pod before
    // it pulls an image: one that would share a GPU, or pass the node's allocatable, with
    // a pod still there fails instead.
    const bool starting =
        (decision.action == PodAction::Wait || decision.action == PodAction::Start) &&
        !objectMember(pod, "metadata").contains("deletionTimestamp") &&
        objectMember(pod, "status").value("phase", "") == "Pending";
    if (starting) {
      if (auto refusal = admit(pod)) {
        decision = PodDecision::of(PodAction::Reject);
        decision.reason = std::move(refusal->reason);
        decision.message = std::move(refusal->message);
      } else {
        queue_.add(std::string(kGpuHoldersPrefix) + nodeNameOf(pod));  // it holds from now
      }
    }
    switch (decision.action) {
      case PodAction::Ignore: return true;
      case PodAction::Wait:
        queue_.addAfter(std::string(kPodPrefix) + key, decision.wait);
        return true;
      case PodAction::Remove: {
        kube::DeleteOptions options;
        options.grace_period_seconds = 0;
        options.precondition_uid = metaString(pod, "uid");
        auto removed = client_.remove(ref, options);
        if (removed || removed.error().isNotFound()) {
          std::lock_guard lock(mu_);
          if (removed) ++stats_.removed;
          return true;
        }
        if (!removed.error().isConflict()) {
          log::warn("simulated kubelet: delete failed",
                    {{"pod", key}, {"error", removed.error().describe()}});
          std::lock_guard lock(mu_);
          ++stats_.errors;
          return false;
        }
        break;  // another pod of that name: read again
      }
      case PodAction::Start:
      case PodAction::Exit:
      case PodAction::FailNodeLost:
      case PodAction::FailInvalid:
      case PodAction::Reject: {
        json status;
        if (decision.action == PodAction::Start) status = runningStatus(pod, now);
        if (decision.action == PodAction::Exit) status = exitedStatus(pod, decision.exit_code, now);
        if (decision.action == PodAction::FailNodeLost) status = nodeLostStatus(pod, now);
        if (decision.action == PodAction::FailInvalid)
          status = invalidSimulationStatus(pod, decision.message, now);
        if (decision.action == PodAction::Reject) {
          status = rejectedStatus(pod, decision.reason, decision.message, now);
          log::warn("simulated kubelet: pod not admitted",
                    {{"pod", key}, {"reason", decision.reason}, {"message", decision.message}});
        }
        json next = pod;
        next["status"] = std::move(status);
        ref.subresource = "status";
        auto written = kube::updateStatus(client_, ref, next, writeOptions());
        if (written) {
          std::lock_guard lock(mu_);
          switch (decision.action) {
            case PodAction::Start:
              ++stats_.started;
              pods_memory_[metaString(pod, "uid")].started = now;
              break;
            case PodAction::Exit: ++stats_.exited; break;
            case PodAction::FailNodeLost: ++stats_.node_lost; break;
            case PodAction::Reject: ++stats_.rejected; break;
            default: break;
          }
          return true;
        }
        if (written.error().isNotFound()) return true;
        if (!written.error().isConflict()) {
          log::warn("simulated kubelet: status write failed",
                    {{"pod", key},
                     {"action", podActionName(decision.action)},
                     {"error", written.error().describe()}});
          std::lock_guard lock(mu_);
          ++stats_.errors;
          return false;
        }
        break;
      }
    }
    // 409: someone wrote the pod since it was read. Read it again and decide again.
    {
      std::lock_guard lock(mu_);
      ++stats_.conflicts;
    }
    ref.subresource.clear();
    auto fresh = client_.get(ref);
    if (!fresh) return fresh.error().isNotFound();
    cached = std::make_shared<const json>(std::move(fresh.value()));
  }
  return false;
}

bool SimulatedCluster::processNode(const std::string& name) {
  kube::ObjectPtr node = nodes_.cache().get(name);  // read in place, as processPod does
  if (!node) return true;
  Time now = clock_.now();
  bool heartbeat_due = true;
  {
    std::lock_guard lock(mu_);
    auto last = last_heartbeat_.find(name);
    heartbeat_due = last == last_heartbeat_.end() || now - last->second >= options_.node_heartbeat;
  }
  kube::ObjectRef ref{res::kNodes, "", name, "status"};
  for (int attempt = 0;; ++attempt) {
    auto status = nodeStatusUpdate(*node, now, heartbeat_due);
    if (!status) break;
    json next = *node;
    next["status"] = std::move(*status);
    auto written = kube::updateStatus(client_, ref, next, writeOptions());
    if (written) {
      std::lock_guard lock(mu_);
      last_heartbeat_[name] = now;
      ++stats_.node_writes;
      break;
    }
    if (written.error().isNotFound()) return true;
    if (!written.error().isConflict() || attempt + 1 >= options_.conflict_attempts) {
      log::warn("simulated kubelet: node status write failed",
                {{"node", name}, {"error", written.error().describe()}});
      std::lock_guard lock(mu_);
      ++stats_.errors;
      return false;
    }
    {
      std::lock_guard lock(mu_);
      ++stats_.conflicts;
    }
    auto fresh = client_.get({res::kNodes, "", name, ""});
    if (!fresh) return fresh.error().isNotFound();
    node = std::make_shared<const json>(std::move(fresh.value()));
  }
  bool lease_ok = true;
  if (options_.lease_renewal.count() > 0 && !failureRequested(*node))
    lease_ok = renewLease(*node, now);
  auto period = options_.node_heartbeat;
  if (options_.lease_renewal.count() > 0) period = std::min(period, options_.lease_renewal);
  queue_.addAfter(std::string(kNodePrefix) + name, period);
  return lease_ok;
}

bool SimulatedCluster::syncGpuHolders(const std::string& name) {
  kube::ObjectPtr node = nodes_.cache().get(name);
  if (!node || failureRequested(*node)) return true;  // a failed node's kubelet writes nothing
  const auto holding = holdingPods(name);
  std::vector<const json*> pods;
  for (const auto& pod : holding) pods.push_back(pod.get());
  const std::string holders = gpuHolders(pods);
  const json& annotations = objectMember(objectMember(*node, "metadata"), "annotations");
  const std::string key(api::kGpuHoldersAnnotation);
  const std::string now_said = annotations.value(key, std::string());
  if (now_said == holders) return true;
  json patch = {{"metadata", {{"annotations", {{key, holders.empty() ? json() : json(holders)}}}}}};
  auto patched = client_.patch({res::kNodes, "", name, ""}, patch, kube::PatchOptions{});
  if (patched || patched.error().isNotFound()) return true;
  log::warn("simulated kubelet: node GPU holders write failed",
            {{"node", name}, {"error", patched.error().describe()}});
  std::lock_guard lock(mu_);
  ++stats_.errors;
  return false;
}

bool SimulatedCluster::renewLease(const json& node, Time now) {
  std::string name = metaString(node, "name");
  bool namespace_ready = false;
  {
    std::lock_guard lock(mu_);
    auto last = last_lease_.find(name);
    if (last != last_lease_.end() && now - last->second < options_.lease_renewal) return true;
    namespace_ready = lease_namespace_ready_;
  }
  const std::string ns(kNodeLeaseNamespace);
  if (!namespace_ready) {
    json namespace_object = {
        {"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}};
    auto made = client_.create(res::kNamespaces, "", namespace_object, {});
    if (!made && !made.error().isAlreadyExists()) {
      log::warn("simulated kubelet: cannot create namespace",
                {{"namespace", ns}, {"error", made.error().describe()}});
      return false;
    }
    std::lock_guard lock(mu_);
    lease_namespace_ready_ = true;
  }
  json lease = nodeLease(node, now);
  kube::ObjectRef ref{res::kLeases, ns, name, ""};
  auto patched = client_.patch(ref, {{"spec", lease["spec"]}}, kube::PatchOptions{});
  if (!patched && patched.error().isNotFound()) {
    auto made = client_.create(res::kLeases, ns, lease, writeOptions());
    if (!made && !made.error().isAlreadyExists()) {
      log::warn("simulated kubelet: lease create failed",
                {{"node", name}, {"error", made.error().describe()}});
      return false;
    }
  } else if (!patched) {
    log::warn("simulated kubelet: lease renewal failed",
              {{"node", name}, {"error", patched.error().describe()}});
    return false;
  }
  std::lock_guard lock(mu_);
  last_lease_[name] = now;
  return true;
}

}  // namespace troupe::kubelet
