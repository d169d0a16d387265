#pragma once

#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include <sys/types.h>

#include "common/clock.h"
#include "kube/rest_kube_client.h"
#include "operator/operator.h"
#include "test/operator/chart_identity.h"
#include "test/support/temp_dir.h"

// A whole standalone cluster: `troupe serve` (a real process, $TROUPE_SERVE_BINARY) on a
// free 127.0.0.1 port with the repository's CRDs and nodes with GPUs, run by its simulated
// kubelets (a bound pod starts Running after a simulated second, then Succeeded or Failed
// after the troupe.dev/sim-* annotations), a KubeClient, and the operator started in-process
// on it (or as a `troupe operator` process). Tests drive it with the real kubectl.
//
// The operator runs as the Helm chart installs it: the chart's ServiceAccount, ClusterRole,
// Role and bindings (rendered as Helm renders them) are applied to the server, and the
// operator's token is that ServiceAccount's, authorised by those RBAC objects alone (and,
// with leader_elect, it elects a leader on the chart's Lease). The server records every
// authorization decision; a request of the operator that the chart does not allow fails
// the test, named, when the fixture ends.
namespace troupe::operator_runtime::testing {

struct ClusterFixtureOptions {
  int nodes = 2;
  int gpus_per_node = 8;
  // rack of node i: "rack-<i / nodes_per_rack>"; 0: no rack labels.
  int nodes_per_rack = 0;
  // false: the operator runs as a `troupe operator` process ($TROUPE_BINARY) that the
  // test may SIGKILL and start again.
  bool in_process_operator = true;
  // The in-process operator elects a leader on the chart's Lease, with the Deployment's
  // flags; otherwise it leads from the start, as a single replica does.
  bool leader_elect = false;
  // false: troupe serve makes none of the admission webhook's checks (--no-admission), as a
  // cluster whose webhook does not answer and lets writes through (failurePolicy Ignore).
  bool admission = true;
};

class ClusterFixture {
 public:
  explicit ClusterFixture(ClusterFixtureOptions options = {});
  ~ClusterFixture();

  // Runs kubectl with the server's kubeconfig; stdin from `input`. Returns stdout; fails
  // the test on a non-zero exit.
  std::string kubectl(const std::string& args, const std::string& input = "");
  // The object as JSON (kubectl get -o json), or null when absent.
  nlohmann::json get(const std::string& what);
  // A TrainingJob's status.phase in "default", read with the admin's client; "" when the
  // job is absent or has no phase yet.
  std::string jobPhase(const std::string& job);
  // Polls `condition` every 50 ms until true or `timeout`; false on timeout.
  bool eventually(const std::function<bool()>& condition,
                  std::chrono::milliseconds timeout = std::chrono::seconds(20));

  // The admin's client, for the test's own reads and writes.
  kube::KubeClient& client() { return *client_; }
  const ChartIdentity& chart() const { return chart_; }
  // Every authorization decision the server made so far.
  std::vector<Decision> decisions() const;
  Operator& op() { return *operator_; }
  // Stops the operator and starts a new one on the same state directory.
  void restartOperator();
  // Process mode: SIGKILL the operator process (no shutdown at all), and start a new one.
  void killOperatorProcess();
  void startOperatorProcess();

 private:
  void startOperator();
  void applyChartIdentity();

  troupe::testing::TempDir dir_;  // declared first: removed after the processes stop
  ClusterFixtureOptions options_;
  pid_t server_pid_ = -1;
  std::string kubeconfig_;
  std::unique_ptr<kube::RestKubeClient> client_;
  ChartIdentity chart_;
  std::string authorization_log_;
  // The chart's ServiceAccount: its token, a client and a kubeconfig with it.
  std::string operator_token_;
  std::unique_ptr<kube::RestKubeClient> operator_client_;
  std::string operator_kubeconfig_;
  SystemTimeSource time_;
  std::unique_ptr<Operator> operator_;
  pid_t operator_pid_ = -1;
};

}  // namespace troupe::operator_runtime::testing
