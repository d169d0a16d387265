#include "bench/api/pod_bind_tracker.h"

#include "bench/api/latency.h"
#include "common/json_member.h"

namespace troupe::bench {
namespace {

std::string groupOf(const std::string& job) { return job.substr(0, job.find('-')); }

}  // namespace

Result<std::unique_ptr<PodBindTracker>> PodBindTracker::start(kube::KubeClient& client,
                                                              const std::string& ns) {
  auto listed = client.list(kube::resources::kPods, ns, {});
  if (!listed) return Error(listed.error());
  std::unique_ptr<PodBindTracker> tracker(new PodBindTracker(client, ns));
  std::string version = (*listed)["metadata"].value("resourceVersion", "");
  tracker->thread_ =
      std::jthread([t = tracker.get(), version](std::stop_token stop) { t->run(version, stop); });
  return tracker;
}

PodBindTracker::~PodBindTracker() {
  thread_.request_stop();
  if (thread_.joinable()) thread_.join();
}

void PodBindTracker::run(std::string resource_version, std::stop_token stop) {
  {
    std::lock_guard lock(mu_);
    last_version_ = std::move(resource_version);
  }
  while (!stop.stop_requested()) {
    kube::WatchOptions options;
    options.timeout_seconds = 3600;
    {
      std::lock_guard lock(mu_);
      options.resource_version = last_version_;
    }
    auto done = client_.watch(
        kube::resources::kPods, ns_, options,
        [this](const kube::WatchEvent& event) { onEvent(event); }, stop);
    if (!done && !stop.stop_requested()) {
      std::lock_guard lock(mu_);
      last_error_ = done.error().describe();
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
}

void PodBindTracker::onEvent(const kube::WatchEvent& event) {
  const auto at = nowNs();
  const nlohmann::json& meta = objectMember(event.object, "metadata");
  std::lock_guard lock(mu_);
  if (meta.contains("resourceVersion")) last_version_ = meta["resourceVersion"].get<std::string>();
  if (event.type == kube::WatchEventType::Bookmark) return;
  const nlohmann::json& labels = objectMember(meta, "labels");
  // A TrainingJob's pod, or a pod of a PodGroup the benchmark made itself.
  std::string job = labels.value("troupe.dev/job-name", "");
  if (job.empty()) job = labels.value("troupe.dev/pod-group", "");
  if (job.empty()) job = labels.value("bench.troupe.dev/job", "");  // a lone pod's
  if (job.empty()) return;
  std::string pod = meta.value("name", "");
  if (event.type == kube::WatchEventType::Deleted) {
    deleted_[groupOf(job)]++;
    return;
  }
  const nlohmann::json& spec = objectMember(event.object, "spec");
  if (spec.value("nodeName", "").empty()) return;
  // A pod name is reused when a job recreates its gang: count it with its uid.
  std::string key = pod + "/" + meta.value("uid", "");
  if (!bound_pods_.insert(key).second) return;
  binds_[groupOf(job)].push_back(PodBind{job, at});
}

int PodBindTracker::bound(const std::string& group) const {
  std::lock_guard lock(mu_);
  auto it = binds_.find(group);
  return it == binds_.end() ? 0 : static_cast<int>(it->second.size());
}

int PodBindTracker::deleted(const std::string& group) const {
  std::lock_guard lock(mu_);
  auto it = deleted_.find(group);
  return it == deleted_.end() ? 0 : it->second;
}

int PodBindTracker::waitForBound(const std::string& group, int count,
                                 std::chrono::steady_clock::time_point deadline) const {
  for (;;) {
    int now = bound(group);
    if (now >= count || std::chrono::steady_clock::now() >= deadline) return now;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

std::vector<PodBind> PodBindTracker::binds(const std::string& group) const {
  std::lock_guard lock(mu_);
  auto it = binds_.find(group);
  return it == binds_.end() ? std::vector<PodBind>{} : it->second;
}

std::string PodBindTracker::lastError() const {
  std::lock_guard lock(mu_);
  return last_error_;
}

}  // namespace troupe::bench
