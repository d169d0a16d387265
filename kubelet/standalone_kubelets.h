#pragma once

#include <memory>
#include <string>

#include "common/result.h"
#include "kube/kube_client.h"
#include "kubelet/simulated_cluster.h"

// The simulated kubelets as `troupe serve` runs them: the SimulatedCluster on a client of
// the server's API (the loopback `troupe serve` gives it, or HTTPS), its threads at a lower
// CPU priority than the control plane's.
namespace troupe::kubelet {

class StandaloneKubelets {
 public:
  // Starts the simulated cluster on `client` (waits for its informers to list). Errors say
  // what could not be listed.
  static Result<std::unique_ptr<StandaloneKubelets>> start(std::unique_ptr<kube::KubeClient> client,
                                                           SimulatedClusterOptions options);
  ~StandaloneKubelets();
  void stop();
  SimulatedCluster& cluster() { return *cluster_; }

 private:
  StandaloneKubelets() = default;
  struct Parts;
  std::unique_ptr<Parts> parts_;
  SimulatedCluster* cluster_ = nullptr;
};

}  // namespace troupe::kubelet
