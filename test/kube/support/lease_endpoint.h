#pragma once

#include <nlohmann/json.hpp>

#include <mutex>
#include <string>

#include "test/kube/support/scripted_server.h"

namespace troupe::kube::testing {

// A minimal coordination.k8s.io/v1 Lease endpoint for one namespace, with the apiserver's
// optimistic concurrency: GET, POST (AlreadyExists when present) and PUT (a stale
// metadata.resourceVersion is the recorded 409 Conflict body). `setAvailable(false)` makes
// every answer a 503, as an apiserver that is down.
class LeaseEndpoint {
 public:
  explicit LeaseEndpoint(ScriptedServer& server);

  nlohmann::json lease() const;  // null when none exists
  void setAvailable(bool available);
  int writes() const;

 private:
  Reply handle(const RecordedRequest& request);

  mutable std::mutex mu_;
  nlohmann::json lease_;  // guarded by mu_
  long long revision_ = 236;
  bool available_ = true;
  int writes_ = 0;
};

}  // namespace troupe::kube::testing
