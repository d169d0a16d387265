#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "test/support/child_process.h"
#include "test/support/command.h"
#include "test/support/temp_dir.h"

// The real `troupe serve` as a user runs it: the binary's own CRDs and built-in cluster,
// the operator and the simulated kubelets in the process, /metrics on a free port. Started
// in a working directory of its own (not the source tree), so nothing outside the binary
// can make it work. Tests drive it with the machine's kubectl.
namespace troupe::testing {

struct DemoServeOptions {
  // `troupe serve` flags beyond --data-dir, --listen and --metrics-addr.
  std::vector<std::string> args = {"--nodes", "4", "--racks", "2", "--gpus-per-node", "8"};
  std::string binary;  // empty: this build's troupe
  // The token file to start with (DATA_DIR/tokens); empty: the one serve makes.
  std::string tokens;
};

class DemoServe {
 public:
  explicit DemoServe(DemoServeOptions options = {});
  ~DemoServe();
  DemoServe(const DemoServe&) = delete;
  DemoServe& operator=(const DemoServe&) = delete;

  // Starts and waits until /readyz answers ok (at most ~30 s); false if it did not.
  bool start();
  // SIGTERM, then waits for the exit; returns its exit status (-1 if it had to be killed).
  int stop();

  int port() const { return port_; }
  int metricsPort() const { return metrics_port_; }
  const std::string& dir() const { return temp_.path(); }
  std::string kubeconfig() const { return temp_.path() + "/data/kubeconfig"; }
  std::string adminToken() const;
  std::string log() const;

  // `kubectl --kubeconfig K ARGS` (at most 60 s), stdin from `input` when given.
  CommandResult kubectl(const std::string& args, const std::string& input = "") const;
  // Polls `condition` every 200 ms until it holds or `timeout` passes.
  static bool eventually(const std::function<bool()>& condition,
                         std::chrono::milliseconds timeout = std::chrono::seconds(30));

 private:
  DemoServeOptions options_;
  TempDir temp_;
  int port_ = 0;
  int metrics_port_ = 0;
  std::unique_ptr<ChildProcess> process_;
};

// A queue tree and jobs for the 4 x 8-GPU cluster of DemoServeOptions, as YAML:
//   org (32 guaranteed) > team-a (16 guaranteed, limit 24, no preemption within) and
//   team-b (16 guaranteed, idle); team-a runs a-big (2 x 8 GPUs) and a-extra (1 x 8, so
//   it borrows 8 of team-b's idle guarantee) and holds a-late (1 x 8) and a-urgent (1 x 8,
//   higher priority, created after a-late) back at its limit.
std::string demoQueuesYaml();
std::string demoRunningJobsYaml();
std::string demoWaitingJobsYaml();

}  // namespace troupe::testing
