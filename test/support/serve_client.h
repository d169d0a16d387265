#pragma once

#include <catch2/catch.hpp>

#include <functional>
#include <memory>

#include "kube/kubeconfig.h"
#include "kube/rest_kube_client.h"
#include "test/support/serve_process.h"

namespace troupe::testing {

// Troupe's own Kubernetes client for a `troupe serve` child, configured from the kubeconfig
// it wrote, with no client-side rate limit; `adjust` may change the configuration first.
inline std::unique_ptr<kube::RestKubeClient> clientFor(
    const ServeProcess& serve, const std::function<void(kube::ClientConfig&)>& adjust = {}) {
  kube::KubeconfigOptions options;
  options.explicit_path = serve.kubeconfig();
  auto config = kube::loadKubeconfig(options);
  REQUIRE(config);
  config->qps = 0;
  if (adjust) adjust(*config);
  auto client = kube::RestKubeClient::create(*config);
  REQUIRE(client);
  return std::move(*client);
}

}  // namespace troupe::testing
