#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>

#include "common/clock.h"
#include "common/result.h"
#include "kube/kube_client.h"

// Leader election on a coordination.k8s.io/v1 Lease, as client-go's leaderelection:
//   - acquire: create the Lease, or take it over once its holder has not renewed it for
//     leaseDurationSeconds (measured from when *we* saw its record change, so clock skew
//     between candidates does not matter), bumping leaseTransitions and acquireTime;
//   - renew: write renewTime every retry_period while leading (optimistic concurrency: a
//     stale resourceVersion is 409 Conflict and counts as a failed attempt);
//   - lose: when no renewal succeeded for renew_deadline, or another holder is seen;
//   - release: on graceful shutdown, clear holderIdentity (leaseDurationSeconds 1) so a
//     standby takes over at once.
// Times come from a TimeSource so tests drive them. step() is one attempt; run() calls it
// every retry_period on the caller's thread until stopped, then releases.
// Callbacks run on the thread calling step()/run() and must return promptly.
namespace troupe::kube {

struct LeaderElectionConfig {
  std::string lease_namespace;
  std::string lease_name;
  std::string identity;  // unique per candidate: "<hostname>_<uuid>"
  std::chrono::seconds lease_duration{15};
  std::chrono::seconds renew_deadline{10};
  std::chrono::seconds retry_period{2};
  std::function<void()> on_started_leading;
  std::function<void()> on_stopped_leading;
  std::function<void(const std::string& identity)> on_new_leader;  // observed holder changed
};

class LeaderElector {
 public:
  // Errors (Invalid, naming the field) when the config breaks a rule: names set, and
  // lease_duration > renew_deadline > retry_period > 0.
  static Result<std::unique_ptr<LeaderElector>> create(KubeClient& client, const TimeSource& time,
                                                       LeaderElectionConfig config);

  // One acquire-or-renew attempt followed by the deadline check; fires callbacks.
  // Returns whether this candidate leads afterwards.
  bool step();
  // step() every retry_period until `stop`, then release().
  void run(std::stop_token stop);
  // Gives up the lease if held (and fires on_stopped_leading).
  ApiResult<void> release();

  bool isLeader() const;
  // The holder seen in the last Lease read ("" if none).
  std::string observedLeader() const;
  std::string lastError() const;

 private:
  LeaderElector(KubeClient& client, const TimeSource& time, LeaderElectionConfig config);
  // true: the lease is ours after the attempt.
  bool tryAcquireOrRenew();
  void observe(const nlohmann::json& lease);
  void setLeading(bool leading);

  KubeClient& client_;
  const TimeSource& time_;
  const LeaderElectionConfig config_;
  mutable std::mutex mu_;
  bool leading_ = false;            // guarded by mu_
  std::string observed_holder_;     // guarded by mu_
  nlohmann::json observed_spec_;    // the Lease spec last read; a change restarts its clock
  Time observed_time_{};            // when observed_spec_ last changed (our clock)
  std::optional<Time> last_renew_;  // when we last acquired or renewed successfully
  std::string last_error_;          // guarded by mu_
};

}  // namespace troupe::kube
