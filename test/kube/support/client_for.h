#pragma once

#include <memory>

#include "kube/rest_kube_client.h"
#include "test/kube/support/scripted_server.h"

namespace troupe::kube::testing {

// The TrainingJob of the recorded fixtures every client test reads and writes.
inline const ObjectRef kLlamaA{resources::kTrainingJobs, "fixtures", "llama-a", ""};

// A ClientConfig pointing at `server`, with test-sized retry delays and no rate limit.
inline ClientConfig configFor(const ScriptedServer& server) {
  ClientConfig config;
  config.server = server.url();
  config.token = "test-token";
  config.qps = 0;
  config.retry_base_delay = std::chrono::milliseconds(10);
  config.retry_max_delay = std::chrono::milliseconds(40);
  config.request_timeout = std::chrono::milliseconds(5000);
  config.source = "test";
  return config;
}

inline std::unique_ptr<RestKubeClient> clientFor(const ClientConfig& config) {
  auto client = RestKubeClient::create(config);
  TROUPE_CHECK(client.ok(), "client for {}: {}", config.server,
               client.ok() ? "" : client.error().describe());
  return std::move(*client);
}

}  // namespace troupe::kube::testing
