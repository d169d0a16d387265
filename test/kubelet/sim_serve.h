#pragma once

#include <sys/types.h>

#include <string>

#include "test/support/https_client.h"

// The real `troupe serve` as a child process on a free 127.0.0.1 port with its simulated
// kubelets: a temp data dir, a cluster file written from `cluster_yaml`, and --sim-speed.
namespace troupe::testing {

class SimServe {
 public:
  SimServe(std::string cluster_yaml, double sim_speed);
  ~SimServe();

  // Starts and waits until /readyz answers ok (at most ~20 s); false if it did not.
  bool start();
  // SIGTERM, then waits; the exit status (-1 if it had to be killed).
  int stop();

  int port() const { return port_; }
  std::string kubeconfig() const { return temp_.path() + "/data/kubeconfig"; }
  const std::string& dir() const { return temp_.path(); }
  std::string log() const;

 private:
  TempDir temp_;
  double sim_speed_;
  int port_ = 0;
  pid_t pid_ = -1;
};

// `kubectl --kubeconfig K ARGS` through the machine's kubectl (at most 60 s).
CommandResult kubectl(const SimServe& serve, const std::string& args);

}  // namespace troupe::testing
