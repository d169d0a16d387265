#include "kube/leader_elector.h"

#include <fmt/format.h>

#include <condition_variable>

#include "common/log.h"
#include "common/rfc3339.h"

namespace troupe::kube {

Result<std::unique_ptr<LeaderElector>> LeaderElector::create(KubeClient& client,
                                                             const TimeSource& time,
                                                             LeaderElectionConfig config) {
  if (config.lease_name.empty()) {
    return makeError(ErrorCode::Invalid, "leaderElection.leaseName", "Required value");
  }
  if (config.lease_namespace.empty()) {
    return makeError(ErrorCode::Invalid, "leaderElection.leaseNamespace", "Required value");
  }
  if (config.identity.empty()) {
    return makeError(ErrorCode::Invalid, "leaderElection.identity", "Required value");
  }
  if (config.retry_period.count() <= 0) {
    return makeError(ErrorCode::Invalid, "leaderElection.retryPeriod", "must be greater than 0");
  }
  if (config.renew_deadline <= config.retry_period) {
    return makeError(ErrorCode::Invalid, "leaderElection.renewDeadline",
                     fmt::format("{}s must be greater than retryPeriod ({}s)",
                                 config.renew_deadline.count(), config.retry_period.count()));
  }
  if (config.lease_duration <= config.renew_deadline) {
    return makeError(ErrorCode::Invalid, "leaderElection.leaseDuration",
                     fmt::format("{}s must be greater than renewDeadline ({}s)",
                                 config.lease_duration.count(), config.renew_deadline.count()));
  }
  return std::unique_ptr<LeaderElector>(new LeaderElector(client, time, std::move(config)));
}

LeaderElector::LeaderElector(KubeClient& client, const TimeSource& time,
                             LeaderElectionConfig config)
    : client_(client), time_(time), config_(std::move(config)) {}

bool LeaderElector::isLeader() const {
  std::lock_guard lock(mu_);
  return leading_;
}

std::string LeaderElector::observedLeader() const {
  std::lock_guard lock(mu_);
  return observed_holder_;
}

std::string LeaderElector::lastError() const {
  std::lock_guard lock(mu_);
  return last_error_;
}

void LeaderElector::observe(const nlohmann::json& lease) {
  const nlohmann::json spec = lease.contains("spec") && lease["spec"].is_object()
                                  ? lease["spec"]
                                  : nlohmann::json::object();
  std::string holder;
  if (auto h = spec.find("holderIdentity"); h != spec.end() && h->is_string()) holder = *h;
  bool new_leader = false;
  {
    std::lock_guard lock(mu_);
    if (spec != observed_spec_) {
      observed_spec_ = spec;
      observed_time_ = time_.now();
    }
    new_leader = holder != observed_holder_;
    observed_holder_ = holder;
  }
  if (new_leader && !holder.empty() && config_.on_new_leader) config_.on_new_leader(holder);
}

bool LeaderElector::tryAcquireOrRenew() {
  const ObjectRef ref{resources::kLeases, config_.lease_namespace, config_.lease_name, ""};
  const Time now = time_.now();
  const std::string now_text = formatRfc3339(now, 6);
  auto fail = [&](const std::string& why) {
    std::lock_guard lock(mu_);
    last_error_ = why;
    return false;
  };

  auto current = client_.get(ref);
  if (!current) {
    if (!current.error().isNotFound()) return fail(current.error().describe());
    nlohmann::json lease = {
        {"apiVersion", "coordination.k8s.io/v1"},
        {"kind", "Lease"},
        {"metadata", {{"name", config_.lease_name}, {"namespace", config_.lease_namespace}}},
        {"spec",
         {{"holderIdentity", config_.identity},
          {"leaseDurationSeconds", config_.lease_duration.count()},
          {"acquireTime", now_text},
          {"renewTime", now_text},
          {"leaseTransitions", 0}}},
    };
    auto created = client_.create(resources::kLeases, config_.lease_namespace, lease, {});
    if (!created) return fail(created.error().describe());
    observe(*created);
    return true;
  }
  observe(*current);
  nlohmann::json lease = *current;
  nlohmann::json& spec = lease["spec"];
  if (!spec.is_object()) spec = nlohmann::json::object();
  std::string holder;
  if (auto h = spec.find("holderIdentity"); h != spec.end() && h->is_string()) holder = *h;
  const bool ours = holder == config_.identity;
  {
    std::lock_guard lock(mu_);
    const bool valid = !holder.empty() && observed_time_ + config_.lease_duration > now;
    if (!ours && valid) {
      last_error_ = fmt::format("lease held by {}", holder);
      return false;
    }
  }
  if (!ours) {
    // A new holder (as client-go: even after a release) is a transition.
    const auto transitions = spec.find("leaseTransitions");
    const std::int64_t previous = transitions != spec.end() && transitions->is_number_integer()
                                      ? transitions->get<std::int64_t>()
                                      : 0;
    spec["acquireTime"] = now_text;
    spec["leaseTransitions"] = previous + 1;
  }
  spec["holderIdentity"] = config_.identity;
  spec["leaseDurationSeconds"] = config_.lease_duration.count();
  spec["renewTime"] = now_text;
  auto updated = client_.update(ref, lease, {});
  if (!updated) return fail(updated.error().describe());
  observe(*updated);
  return true;
}

void LeaderElector::setLeading(bool leading) {
  bool changed = false;
  {
    std::lock_guard lock(mu_);
    changed = leading_ != leading;
    leading_ = leading;
  }
  if (!changed) return;
  log::info(leading ? "became leader" : "stopped leading",
            {{"lease", config_.lease_namespace + "/" + config_.lease_name},
             {"identity", config_.identity}});
  if (leading && config_.on_started_leading) config_.on_started_leading();
  if (!leading && config_.on_stopped_leading) config_.on_stopped_leading();
}

bool LeaderElector::step() {
  const bool holds = tryAcquireOrRenew();
  const Time now = time_.now();
  bool leading;
  {
    std::lock_guard lock(mu_);
    if (holds) last_renew_ = now;
    leading = leading_;
  }
  if (holds) {
    setLeading(true);
    return true;
  }
  if (leading) {
    // Still leading until the renew deadline passes, unless someone else holds the lease.
    std::optional<Time> last;
    std::string holder;
    {
      std::lock_guard lock(mu_);
      last = last_renew_;
      holder = observed_holder_;
    }
    const bool taken = !holder.empty() && holder != config_.identity;
    const bool expired = !last || now - *last >= config_.renew_deadline;
    if (taken || expired) setLeading(false);
  }
  return isLeader();
}

ApiResult<void> LeaderElector::release() {
  if (!isLeader()) return {};
  const ObjectRef ref{resources::kLeases, config_.lease_namespace, config_.lease_name, ""};
  auto current = client_.get(ref);
  if (!current) {
    setLeading(false);
    return current.error();
  }
  nlohmann::json lease = *current;
  const nlohmann::json holder = lease["spec"].is_object()
                                    ? lease["spec"].value("holderIdentity", nlohmann::json())
                                    : nlohmann::json();
  if (holder != config_.identity) {
    setLeading(false);
    return {};
  }
  const std::string now_text = formatRfc3339(time_.now(), 6);
  lease["spec"]["holderIdentity"] = "";
  lease["spec"]["leaseDurationSeconds"] = 1;
  lease["spec"]["renewTime"] = now_text;
  lease["spec"]["acquireTime"] = now_text;
  auto updated = client_.update(ref, lease, {});
  setLeading(false);
  if (!updated) return updated.error();
  return {};
}

void LeaderElector::run(std::stop_token stop) {
  std::mutex m;
  std::condition_variable_any cv;
  while (!stop.stop_requested()) {
    step();
    std::unique_lock lock(m);
    cv.wait_for(lock, stop, config_.retry_period, [] { return false; });
  }
  if (auto released = release(); !released) {
    log::warn("could not release the lease", {{"error", released.error().describe()}});
  }
}

}  // namespace troupe::kube
