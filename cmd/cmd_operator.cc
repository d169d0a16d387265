#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <csignal>
#include <sstream>
#include <thread>

#include "apiserver/standalone_server.h"
#include "cmd/commands.h"
#include "common/clock.h"
#include "common/log.h"
#include "dashboard/dashboard_server.h"
#include "kube/config_loader.h"
#include "kube/rest_kube_client.h"
#include "operator/admission_webhook.h"
#include "operator/http_endpoint.h"
#include "operator/operator.h"

namespace troupe::cmd {
namespace {

struct OperatorFlags {
  std::string kubeconfig;
  std::string state_dir = "/var/lib/troupe";
  bool leader_elect = true;
  std::string leader_election_namespace;
  std::string leader_election_id = "troupe-operator";
  std::string metrics_addr = ":8080";
  std::string health_addr = ":8081";
  std::string dashboard_addr;  // empty: no dashboard
  std::string log_level = "info";
  double kube_qps = 50;
  int kube_burst = 100;
  std::string topology_levels = "troupe.dev/block,troupe.dev/rack";
  std::string webhook_addr = ":9443";
  std::string webhook_cert_dir;  // empty: no webhook
};

volatile std::sig_atomic_t g_signal = 0;
void onSignal(int signal) { g_signal = signal; }

std::vector<std::string> splitComma(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, ','))
    if (!part.empty()) out.push_back(part);
  return out;
}

int fail(const std::string& message) {
  log::error(message);
  fmt::print(stderr, "troupe operator: {}\n", message);
  return 1;
}

int runOperator(const OperatorFlags& flags) {
  auto level = log::parseLevel(flags.log_level);
  if (!level) return fail("--log-level: " + level.error().message);
  log::setLevel(*level);
  if (flags.kube_qps <= 0) return fail("--kube-qps: must be greater than 0");
  if (flags.kube_burst < 1) return fail("--kube-burst: must be at least 1");

  auto config = kube::loadClientConfig(kube::kubeconfigOptionsFromEnvironment(flags.kubeconfig),
                                       kube::inClusterEnvironmentFromProcess());
  if (!config) return fail("cannot load the client configuration: " + config.error().describe());
  config->qps = flags.kube_qps;
  config->burst = flags.kube_burst;
  config->max_idle_connections = operator_runtime::kClientConnections;
  auto client = kube::RestKubeClient::create(*config);
  if (!client) return fail("cannot create the client: " + client.error().describe());

  operator_runtime::OperatorOptions options;
  options.state_dir = flags.state_dir;
  options.leader_elect = flags.leader_elect;
  options.leader_election_namespace =
      flags.leader_election_namespace.empty() ? config->ns : flags.leader_election_namespace;
  options.leader_election_id = flags.leader_election_id;
  options.topology_levels = splitComma(flags.topology_levels);
  SystemTimeSource time;
  auto op = operator_runtime::Operator::create(**client, options, time);
  if (!op) return fail(op.error().describe());
  auto& the_operator = **op;

  auto metrics = operator_runtime::HttpEndpoint::start(
      flags.metrics_addr, [&](const std::string& path) -> operator_runtime::HttpAnswer {
        if (path != "/metrics") return {404, "text/plain", "not found\n"};
        return {200, "text/plain; version=0.0.4; charset=utf-8", the_operator.metrics().render()};
      });
  if (!metrics) return fail("--metrics-addr: " + metrics.error().message);
  auto health = operator_runtime::HttpEndpoint::start(
      flags.health_addr, [&](const std::string& path) -> operator_runtime::HttpAnswer {
        if (path == "/healthz") return {200, "text/plain", "ok"};
        if (path == "/readyz") {
          if (the_operator.ready()) return {200, "text/plain", "ok"};
          return {503, "text/plain", "caches not synced"};
        }
        return {404, "text/plain", "not found\n"};
      });
  if (!health) return fail("--health-addr: " + health.error().message);

  std::unique_ptr<operator_runtime::AdmissionWebhook> webhook;
  if (!flags.webhook_cert_dir.empty()) {
    std::string addr = flags.webhook_addr;
    if (!addr.empty() && addr.front() == ':') addr = "0.0.0.0" + addr;
    auto listen = apiserver::parseListen(addr);
    if (!listen) return fail("--webhook-addr: " + listen.error().message);
    operator_runtime::AdmissionWebhookOptions webhook_options;
    webhook_options.address = listen->first;
    webhook_options.port = listen->second;
    webhook_options.cert_file = flags.webhook_cert_dir + "/tls.crt";
    webhook_options.key_file = flags.webhook_cert_dir + "/tls.key";
    auto started = operator_runtime::AdmissionWebhook::start(
        webhook_options, the_operator.clusterView(), [&] { return the_operator.ready(); });
    if (!started) return fail("admission webhook: " + started.error().describe());
    webhook = std::move(*started);
    log::info("admission webhook serving", {{"port", webhook->port()}});
  }
  // The dashboard reads the API with each viewer's own token, never the operator's.
  std::unique_ptr<dashboard::DashboardServer> dashboard_server;
  if (!flags.dashboard_addr.empty()) {
    auto proxy = dashboard::ApiProxy::create(*config);
    if (!proxy) return fail("--dashboard-addr: " + proxy.error().describe());
    auto started = dashboard::DashboardServer::start(flags.dashboard_addr, std::move(*proxy));
    if (!started) return fail(started.error().describe());
    dashboard_server = std::move(started.value());
  }

  std::signal(SIGTERM, onSignal);
  std::signal(SIGINT, onSignal);
  log::info("troupe operator starting",
            {{"server", config->server},
             {"source", config->source},
             {"state_dir", flags.state_dir},
             {"leader_elect", flags.leader_elect},
             {"metrics_port", (*metrics)->port()},
             {"health_port", (*health)->port()},
             {"dashboard_port", dashboard_server ? dashboard_server->port() : 0}});
  the_operator.start();
  while (g_signal == 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  log::info("signal received: shutting down", {{"signal", static_cast<int>(g_signal)}});
  the_operator.stop();
  if (dashboard_server) dashboard_server->stop();
  (*metrics)->stop();
  (*health)->stop();
  return 0;
}

}  // namespace

void addOperatorCommand(CLI::App& app) {
  auto flags = std::make_shared<OperatorFlags>();
  auto* cmd = app.add_subcommand(
      "operator", "Run the Troupe operator against a Kubernetes cluster (in-cluster by default)");
  cmd->add_option("--kubeconfig", flags->kubeconfig,
                  "Path to a kubeconfig; in-cluster configuration otherwise");
  cmd->add_option("--state-dir", flags->state_dir,
                  "Directory of the state store (admission journal, usage, accounting)")
      ->capture_default_str();
  cmd->add_option("--leader-elect", flags->leader_elect,
                  "Elect a leader on a Lease so that several replicas run with one active")
      ->capture_default_str();
  cmd->add_option("--leader-election-namespace", flags->leader_election_namespace,
                  "Namespace of the Lease (default: the client's namespace)");
  cmd->add_option("--leader-election-id", flags->leader_election_id, "Name of the Lease")
      ->capture_default_str();
  cmd->add_option("--metrics-addr", flags->metrics_addr, "Address of /metrics")
      ->capture_default_str();
  cmd->add_option("--health-addr", flags->health_addr, "Address of /healthz and /readyz")
      ->capture_default_str();
  cmd->add_option("--dashboard-addr", flags->dashboard_addr,
                  "Address of the web dashboard (/dashboard/), e.g. 127.0.0.1:8082 for kubectl "
                  "port-forward; off when empty");
  cmd->add_option("--log-level", flags->log_level, "debug, info, warn or error")
      ->capture_default_str();
  cmd->add_option("--kube-qps", flags->kube_qps, "Client-side request rate to the API")
      ->capture_default_str();
  cmd->add_option("--kube-burst", flags->kube_burst, "Client-side request burst to the API")
      ->capture_default_str();
  cmd->add_option("--topology-levels", flags->topology_levels,
                  "Node label keys of the topology levels, widest first")
      ->capture_default_str();
  cmd->add_option("--webhook-cert-dir", flags->webhook_cert_dir,
                  "Serve the validating admission webhook with tls.crt and tls.key from this "
                  "directory (read again when they change); empty: no webhook");
  cmd->add_option("--webhook-addr", flags->webhook_addr, "Address of the admission webhook")
      ->capture_default_str();
  cmd->callback([flags] { throw CommandExit{runOperator(*flags)}; });
}

}  // namespace troupe::cmd
