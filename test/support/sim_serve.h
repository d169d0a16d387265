#pragma once

#include <string>

#include "test/support/serve_process.h"

// The real `troupe serve` as a child process with its simulated kubelets: a cluster file
// written from `cluster_yaml`, and --sim-speed.
namespace troupe::testing {

class SimServe : public ServeProcess {
 public:
  SimServe(std::string cluster_yaml, double sim_speed);
  const std::string& dir() const { return workDir(); }
};

// `kubectl --kubeconfig K ARGS` through the machine's kubectl (at most 60 s).
CommandResult kubectl(const SimServe& serve, const std::string& args);

}  // namespace troupe::testing
