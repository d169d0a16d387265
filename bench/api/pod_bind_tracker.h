#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "common/result.h"
#include "kube/kube_client.h"

// Watches every pod of one namespace and notes, once per pod, when it is first seen with
// spec.nodeName set, together with its TrainingJob (label troupe.dev/job-name) or its
// PodGroup (label troupe.dev/pod-group, for pods made without a TrainingJob). Jobs are
// grouped by the part of their name before the first '-' ("j-17" is in group "j").
namespace troupe::bench {

struct PodBind {
  std::string job;    // "j-17"
  int64_t at_ns = 0;  // steady clock, when the event was read
};

class PodBindTracker {
 public:
  // Lists the namespace's pods, then watches from that version on its own thread.
  static Result<std::unique_ptr<PodBindTracker>> start(kube::KubeClient& client,
                                                       const std::string& ns);
  ~PodBindTracker();
  PodBindTracker(const PodBindTracker&) = delete;
  PodBindTracker& operator=(const PodBindTracker&) = delete;

  int bound(const std::string& group) const;
  int deleted(const std::string& group) const;
  // Waits until `group` has `count` bound pods or `deadline`; returns the bound count.
  int waitForBound(const std::string& group, int count,
                   std::chrono::steady_clock::time_point deadline) const;
  std::vector<PodBind> binds(const std::string& group) const;
  // The watch's last error, if it had to be reopened.
  std::string lastError() const;

 private:
  PodBindTracker(kube::KubeClient& client, std::string ns) : client_(client), ns_(std::move(ns)) {}
  void run(std::string resource_version, std::stop_token stop);
  void onEvent(const kube::WatchEvent& event);

  kube::KubeClient& client_;
  const std::string ns_;
  mutable std::mutex mu_;
  std::set<std::string> bound_pods_;                   // guarded by mu_
  std::map<std::string, std::vector<PodBind>> binds_;  // by group; guarded by mu_
  std::map<std::string, int> deleted_;                 // by group; guarded by mu_
  std::string last_version_;                           // guarded by mu_
  std::string last_error_;                             // guarded by mu_
  std::jthread thread_;
};

}  // namespace troupe::bench
