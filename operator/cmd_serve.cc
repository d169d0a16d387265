#include <fmt/format.h>
#include <signal.h>

#include <filesystem>

#include "apiserver/standalone_server.h"
#include "apiserver/storage/sqlite_object_store.h"
#include "common/log.h"
#include "kube/rest_kube_client.h"
#include "kubelet/standalone_kubelets.h"
#include "loopback/loopback_transport.h"
#include "operator/commands.h"
#include "operator/operator.h"

namespace troupe::cli {

namespace {

struct ServeFlags {
  std::string data_dir = "./troupe-data";
  std::string listen = "127.0.0.1:6443";
  std::string cluster = "examples/cluster.yaml";
  std::vector<std::string> crd_dirs;
  std::string kube_minor = "28";
  double sim_speed = 1;
  bool no_kubelets = false;
  bool no_operator = false;
  std::string log_level = "info";
  std::string authorization_log;
};

// A client of this server's own API through the loopback (loopback/): each request goes to
// the handler the HTTPS sessions call, on the calling thread, with the admin token, so the
// operator and the kubelets pass the same authentication, admission and storage as kubectl
// without TLS, sockets or the server's I/O threads between them and the handlers.
std::unique_ptr<kube::RestKubeClient> loopbackClient(apiserver::StandaloneServer& server,
                                                     const std::string& user_agent) {
  kube::ClientConfig config;
  config.source = "troupe serve (loopback)";
  config.token = server.adminToken();
  config.user_agent = user_agent;
  // The server is local: the client-side limit only guards against runaway loops, so it
  // sits well above what the server can commit (a few thousand writes a second). At 1,000
  // requests a second it, not the server, set the bind rate: a single-pod TrainingJob costs
  // the operator about 8 requests, and a gang's bindings queued behind its status writes.
  config.qps = 20000;
  config.burst = 20000;
  auto transport = std::make_unique<loopback::LoopbackTransport>(
      [&server](const apiserver::http::Request& request) { return server.handle(request); });
  return kube::RestKubeClient::create(config, std::move(transport));
}

struct InProcessOperator {
  std::unique_ptr<kube::RestKubeClient> client;
  std::unique_ptr<operator_runtime::Operator> op;
};

// Starts the operator on a loopback client, with its state store in DATA_DIR/operator. One
// replica, so no leader election.
Result<InProcessOperator> startOperator(apiserver::StandaloneServer& server,
                                        const std::string& data_dir, const TimeSource& time) {
  auto client = loopbackClient(server, "");
  operator_runtime::OperatorOptions options;
  options.state_dir = std::filesystem::path(data_dir) / "operator";
  options.leader_elect = false;
  auto op = operator_runtime::Operator::create(*client, options, time);
  if (!op) return op.error();
  (*op)->start();
  return InProcessOperator{std::move(client), std::move(op.value())};
}

int runServe(const ServeFlags& flags) {
  auto level = log::parseLevel(flags.log_level);
  if (!level) {
    fmt::print(stderr, "troupe serve: --log-level: {}\n", level.error().message);
    return 2;
  }
  log::setLevel(*level);
  auto listen = apiserver::parseListen(flags.listen);
  if (!listen) {
    fmt::print(stderr, "troupe serve: {}\n", listen.error().describe());
    return 2;
  }
  if (flags.kube_minor.empty() ||
      flags.kube_minor.find_first_not_of("0123456789") != std::string::npos) {
    fmt::print(stderr, "troupe serve: --kube-minor: must be a number such as 28, got \"{}\"\n",
               flags.kube_minor);
    return 2;
  }
  apiserver::StandaloneOptions options;
  options.data_dir = flags.data_dir;
  options.address = listen->first;
  options.port = listen->second;
  options.cluster_file = flags.cluster;
  if (!options.cluster_file.empty() && !std::filesystem::exists(options.cluster_file)) {
    if (flags.cluster == ServeFlags{}.cluster) {
      options.cluster_file.clear();  // the default file is optional
    } else {
      fmt::print(stderr, "troupe serve: --cluster: file not found: {}\n", flags.cluster);
      return 2;
    }
  }
  options.crd_dirs = flags.crd_dirs;
  options.authorization_log = flags.authorization_log;
  if (options.crd_dirs.empty() && std::filesystem::is_directory("crds"))
    options.crd_dirs = {"crds"};
  options.version.minor = flags.kube_minor;
  options.version.git_version = "v1." + flags.kube_minor + ".0-troupe";

  auto sim_speed = kubelet::SimSpeed::parse(flags.sim_speed);
  if (!sim_speed) {
    fmt::print(stderr, "troupe serve: {}\n", sim_speed.error().describe());
    return 2;
  }

  apiserver::SqliteObjectStoreOptions store_options;
  store_options.data_dir = flags.data_dir;
  auto store = apiserver::SqliteObjectStore::open(store_options);
  if (!store) {
    fmt::print(stderr, "troupe serve: {}\n", store.error().describe());
    return 1;
  }

  // SIGTERM and SIGINT are taken by sigwait below, on this thread only.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  apiserver::StandaloneServer server(options, std::move(store.value()));
  if (auto started = server.start(); !started) {
    fmt::print(stderr, "troupe serve: {}\n", started.error().describe());
    return 1;
  }
  fmt::print("troupe serve: listening on https://{}:{}, kubeconfig {}\n", options.address,
             server.port(), server.kubeconfigPath());
  std::fflush(stdout);
  // The simulated kubelets are a client of the API, like real ones (docs/simulated-cluster.md),
  // through the loopback.
  std::unique_ptr<kubelet::StandaloneKubelets> kubelets;
  if (!flags.no_kubelets) {
    kubelet::SimulatedClusterOptions kubelet_options;
    kubelet_options.speed = *sim_speed;
    auto started = kubelet::StandaloneKubelets::start(
        loopbackClient(server, "troupe-kubelet (simulated)"), kubelet_options);
    if (!started) {
      fmt::print(stderr, "troupe serve: simulated kubelets: {}\n", started.error().describe());
      server.stop();
      return 1;
    }
    kubelets = std::move(started.value());
  }
  // The operator runs in-process, but only through the API (the loopback carries its
  // requests to the same handlers HTTPS does), exactly as `troupe operator` runs against a
  // real cluster: one code path in both modes (docs/architecture.md).
  SystemTimeSource time;
  std::unique_ptr<kube::RestKubeClient> operator_client;  // outlives the operator
  std::unique_ptr<operator_runtime::Operator> the_operator;
  if (!flags.no_operator) {
    auto started = startOperator(server, flags.data_dir, time);
    if (!started) {
      fmt::print(stderr, "troupe serve: operator: {}\n", started.error().describe());
      if (kubelets) kubelets->stop();
      server.stop();
      return 1;
    }
    operator_client = std::move(started->client);
    the_operator = std::move(started->op);
  }
  int received = 0;
  sigwait(&signals, &received);
  log::info("stopping", {{"signal", received}});
  if (the_operator) the_operator->stop();
  if (kubelets) kubelets->stop();
  server.stop();
  return 0;
}

}  // namespace

void addServeCommand(CLI::App& app) {
  auto flags = std::make_shared<ServeFlags>();
  auto* cmd = app.add_subcommand(
      "serve", "Run the Kubernetes-compatible API server on SQLite (standalone mode)");
  cmd->add_option("--data-dir", flags->data_dir,
                  "Directory for the database, certificate, tokens and kubeconfig")
      ->capture_default_str();
  cmd->add_option("--listen", flags->listen, "ADDRESS:PORT to serve HTTPS on")
      ->capture_default_str();
  cmd->add_option("--cluster", flags->cluster, "YAML file of Node objects to create at start")
      ->capture_default_str();
  cmd->add_option("--crds", flags->crd_dirs,
                  "Directory of CRD manifests (*.yaml) applied at start (default: ./crds)");
  cmd->add_option("--kube-minor", flags->kube_minor,
                  "Kubernetes minor version reported by /version (kubectl's dispatcher picks "
                  "kubectl 1.<minor>)")
      ->capture_default_str();
  cmd->add_option("--sim-speed", flags->sim_speed,
                  "How many times faster than the wall clock the simulated kubelets' time "
                  "passes (pod start, run and stop durations are divided by it)")
      ->capture_default_str();
  cmd->add_flag("--no-operator", flags->no_operator,
                "Do not run the operator in-process (run `troupe operator` against this server "
                "instead, or nothing)");
  cmd->add_flag("--no-kubelets", flags->no_kubelets,
                "Do not run the simulated kubelets (pods stay as the API leaves them)");
  cmd->add_option("--log-level", flags->log_level, "debug, info, warn or error")
      ->capture_default_str();
  cmd->add_option("--authorization-log", flags->authorization_log,
                  "Append every authorization decision to this file, one SubjectAccessReview "
                  "(JSON) a line: which requests a client makes and what allowed them");
  cmd->callback([flags] { throw CommandExit{runServe(*flags)}; });
}

}  // namespace troupe::cli
