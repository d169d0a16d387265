#pragma once

#include <memory>
#include <string>

#include "common/result.h"
#include "kubelet/simulated_cluster.h"

// The simulated kubelets as `troupe serve` runs them: a Kubernetes client built from the
// server's kubeconfig (the same HTTPS API kubectl uses) and the SimulatedCluster on it.
namespace troupe::kubelet {

class StandaloneKubelets {
 public:
  // Reads `kubeconfig`, connects and starts the simulated cluster (waits for its informers
  // to list). Errors name the kubeconfig or say what could not be listed.
  static Result<std::unique_ptr<StandaloneKubelets>> start(const std::string& kubeconfig,
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
