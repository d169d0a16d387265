#include <fmt/format.h>
#include <signal.h>

#include <atomic>
#include <filesystem>

#include "api/crd_manifests.h"
#include "apiserver/api_server_metrics.h"
#include "apiserver/standalone_server.h"
#include "apiserver/storage/sqlite_object_store.h"
#include "cmd/commands.h"
#include "cmd/serve_operator_token.h"
#include "common/log.h"
#include "common/metrics_registry.h"
#include "dashboard/static_files.h"
#include "kube/rest_kube_client.h"
#include "kubelet/demo_cluster.h"
#include "kubelet/mig_nodes.h"
#include "kubelet/standalone_kubelets.h"
#include "loopback/loopback_transport.h"
#include "operator/http_endpoint.h"
#include "operator/operator.h"

namespace troupe::cmd {

namespace {

// On by default; a default that is taken (a second `troupe serve`, or something else on the
// machine) is a warning, a named one an error.
constexpr const char* kDefaultMetricsAddr = "127.0.0.1:8080";
constexpr const char* kMetricsContentType = "text/plain; version=0.0.4; charset=utf-8";

struct ServeFlags {
  std::string data_dir = "./troupe-data";
  std::string listen = "127.0.0.1:6443";
  std::string cluster;  // empty: the built-in demo cluster, sized by `shape`
  kubelet::DemoClusterShape shape;
  bool shape_given = false;
  int mig_nodes = 0;  // nodes of MIG slices beside the cluster (kubelet/mig_nodes.h)
  std::vector<std::string> crd_dirs;  // empty: the CRDs compiled into the binary
  std::string metrics_addr = kDefaultMetricsAddr;
  bool metrics_addr_given = false;
  std::string kube_minor = "28";
  double sim_speed = 1;
  bool no_kubelets = false;
  bool no_operator = false;
  bool no_admission = false;
  std::string log_level = "info";
  std::string authorization_log;
};

// A client of this server's own API through the loopback (loopback/): each request goes to
// the handler the HTTPS sessions call, on the calling thread, with `token`, so the
// operator and the kubelets pass the same authentication, admission and storage as kubectl
// without TLS, sockets or the server's I/O threads between them and the handlers.
std::unique_ptr<kube::RestKubeClient> loopbackClient(apiserver::StandaloneServer& server,
                                                     const std::string& user_agent,
                                                     const std::string& token) {
  kube::ClientConfig config;
  config.source = "troupe serve (loopback)";
  config.token = token;
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
                                        const std::string& token, const std::string& data_dir,
                                        const TimeSource& time) {
  auto client = loopbackClient(server, "", token);
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
  if (!flags.cluster.empty()) {
    if (flags.shape_given) {
      fmt::print(stderr,
                 "troupe serve: --nodes, --gpus-per-node and --racks size the built-in cluster; "
                 "they cannot be used with --cluster\n");
      return 2;
    }
    if (!std::filesystem::is_regular_file(flags.cluster)) {
      fmt::print(stderr, "troupe serve: --cluster: file not found: {}\n", flags.cluster);
      return 2;
    }
    options.cluster_file = flags.cluster;
  } else {
    auto nodes = kubelet::demoClusterNodes(flags.shape);
    if (!nodes) {
      fmt::print(stderr, "troupe serve: {}\n", nodes.error().describe());
      return 2;
    }
    options.nodes = std::move(*nodes);
  }
  auto mig = kubelet::migNodes(flags.mig_nodes);
  if (!mig) {
    fmt::print(stderr, "troupe serve: {}\n", mig.error().describe());
    return 2;
  }
  for (auto& node : *mig) options.nodes.push_back(std::move(node));
  for (const auto& dir : flags.crd_dirs) {
    if (!std::filesystem::is_directory(dir)) {
      fmt::print(stderr, "troupe serve: --crds: not a directory: {}\n", dir);
      return 2;
    }
  }
  options.crd_dirs = flags.crd_dirs;
  options.authorization_log = flags.authorization_log;
  options.admission = !flags.no_admission;
  if (flags.crd_dirs.empty())
    for (const auto& crd : api::crdManifests()) options.crd_manifests.emplace_back(crd.yaml);
  options.version.minor = flags.kube_minor;
  options.version.git_version = "v1." + flags.kube_minor + ".0-troupe";

  auto sim_speed = kubelet::SimSpeed::parse(flags.sim_speed);
  if (!sim_speed) {
    fmt::print(stderr, "troupe serve: {}\n", sim_speed.error().describe());
    return 2;
  }

  // The API server's own metrics; the operator keeps its own registry. /metrics serves both.
  MetricsRegistry server_registry;
  apiserver::ApiServerMetrics server_metrics(server_registry);
  options.metrics = &server_metrics;

  apiserver::SqliteObjectStoreOptions store_options;
  store_options.data_dir = flags.data_dir;
  store_options.on_commit = [&server_metrics](std::size_t writes, std::chrono::nanoseconds took) {
    server_metrics.committed(writes, std::chrono::duration<double>(took).count());
  };
  auto store = apiserver::SqliteObjectStore::open(store_options);
  if (!store) {
    fmt::print(stderr, "troupe serve: {}\n", store.error().describe());
    return 1;
  }
  const apiserver::SqliteObjectStore* store_view = store->get();

  // Set while the in-process operator runs; /metrics may be asked for at any moment.
  std::atomic<operator_runtime::Operator*> metered_operator{nullptr};
  auto metrics_text = [&]() {
    server_metrics.setWatchers(store_view->watcherCount());
    std::string text;
    if (auto* op = metered_operator.load()) text = op->metrics().render();
    return text + server_registry.render();
  };
  options.routes.push_back({true, "GET", "/metrics", [&](const auto&, const auto&) {
                              apiserver::http::Response response;
                              response.content_type = kMetricsContentType;
                              response.body = metrics_text();
                              return response;
                            }});
  for (const char* pattern : {"/dashboard", "/dashboard/{path...}"}) {
    options.routes.push_back(
        {false, "GET", pattern, [](const apiserver::http::Request& request, const auto&) {
           auto file = dashboard::staticFile(request.path);
           apiserver::http::Response response;
           response.status = file.status;
           response.content_type = file.content_type;
           response.body = std::string(file.body);
           response.headers = std::move(file.headers);
           return response;
         }});
  }

  // SIGTERM and SIGINT are taken by sigwait below, on this thread only.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  // The in-process operator's own identity, in the token file the server reads at start.
  auto operator_token = serveOperatorToken(flags.data_dir);
  if (!operator_token) {
    fmt::print(stderr, "troupe serve: {}\n", operator_token.error().describe());
    return 1;
  }
  apiserver::StandaloneServer server(options, std::move(store.value()));
  if (auto started = server.start(); !started) {
    fmt::print(stderr, "troupe serve: {}\n", started.error().describe());
    return 1;
  }
  std::unique_ptr<operator_runtime::HttpEndpoint> metrics_endpoint;
  if (!flags.metrics_addr.empty()) {
    auto endpoint = operator_runtime::HttpEndpoint::start(
        flags.metrics_addr, [&](const std::string& path) -> operator_runtime::HttpAnswer {
          if (path != "/metrics") return {404, "text/plain", "not found\n"};
          return {200, kMetricsContentType, metrics_text()};
        });
    if (endpoint) {
      metrics_endpoint = std::move(endpoint.value());
    } else if (flags.metrics_addr_given) {
      fmt::print(stderr, "troupe serve: --metrics-addr: {}\n", endpoint.error().message);
      server.stop();
      return 1;
    } else {
      log::warn("metrics not served: the default address is taken (see --metrics-addr)",
                {{"address", flags.metrics_addr}, {"error", endpoint.error().message}});
    }
  }
  const std::string url = fmt::format("https://{}:{}", options.address, server.port());
  fmt::print("troupe serve: listening on {}, kubeconfig {}\n", url, server.kubeconfigPath());
  fmt::print("troupe serve: dashboard {}/dashboard/\n", url);
  if (metrics_endpoint) {
    auto colon = flags.metrics_addr.rfind(':');
    std::string host = flags.metrics_addr.substr(0, colon);
    fmt::print("troupe serve: metrics http://{}:{}/metrics\n", host.empty() ? "0.0.0.0" : host,
               metrics_endpoint->port());
  }
  std::fflush(stdout);
  log::info("serving", {{"url", url},
                        {"dashboard", url + "/dashboard/"},
                        {"metrics_port", metrics_endpoint ? metrics_endpoint->port() : 0}});
  // The simulated kubelets are a client of the API, like real ones (docs/simulated-cluster.md),
  // through the loopback.
  std::unique_ptr<kubelet::StandaloneKubelets> kubelets;
  auto stop_all = [&] {
    if (metrics_endpoint) metrics_endpoint->stop();
    metered_operator = nullptr;
  };
  if (!flags.no_kubelets) {
    kubelet::SimulatedClusterOptions kubelet_options;
    kubelet_options.speed = *sim_speed;
    auto started = kubelet::StandaloneKubelets::start(
        loopbackClient(server, "troupe-kubelet (simulated)", server.adminToken()), kubelet_options);
    if (!started) {
      fmt::print(stderr, "troupe serve: simulated kubelets: {}\n", started.error().describe());
      stop_all();
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
    auto started = startOperator(server, *operator_token, flags.data_dir, time);
    if (!started) {
      fmt::print(stderr, "troupe serve: operator: {}\n", started.error().describe());
      stop_all();
      if (kubelets) kubelets->stop();
      server.stop();
      return 1;
    }
    operator_client = std::move(started->client);
    the_operator = std::move(started->op);
    metered_operator = the_operator.get();
  }
  int received = 0;
  sigwait(&signals, &received);
  log::info("stopping", {{"signal", received}});
  stop_all();
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
  cmd->add_option("--cluster", flags->cluster,
                  "YAML file of Node objects to create at start, instead of the built-in "
                  "cluster");
  auto* nodes = cmd->add_option("--nodes", flags->shape.nodes,
                                "Nodes of the built-in simulated cluster (0 for none)")
                    ->capture_default_str();
  auto* gpus = cmd->add_option("--gpus-per-node", flags->shape.gpus_per_node,
                               "GPUs of each node of the built-in cluster")
                   ->capture_default_str();
  auto* racks = cmd->add_option("--racks", flags->shape.racks,
                                "Racks the built-in cluster's nodes are spread over (two to a "
                                "block)")
                    ->capture_default_str();
  cmd->add_option("--mig-nodes", flags->mig_nodes,
                  "Nodes of 8 GPUs carved into MIG slices to add to the cluster (8 "
                  "nvidia.com/mig-3g.40gb and 32 nvidia.com/mig-1g.10gb each)")
      ->capture_default_str();
  cmd->add_option("--crds", flags->crd_dirs,
                  "Directory of CRD manifests (*.yaml) applied at start, instead of the CRDs "
                  "built into troupe (repeatable)");
  auto* metrics = cmd->add_option("--metrics-addr", flags->metrics_addr,
                                  "ADDRESS:PORT of /metrics (plain HTTP; \"\" turns it off)")
                      ->capture_default_str();
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
  cmd->add_flag("--no-admission", flags->no_admission,
                "Do not make the checks Troupe's admission webhook makes in a cluster (api/'s "
                "rules, the queue tree, namespaces' access to queues), as a cluster without the "
                "chart's webhook: for CRDs other than Troupe's own under troupe.dev");
  cmd->add_option("--log-level", flags->log_level, "debug, info, warn or error")
      ->capture_default_str();
  cmd->add_option("--authorization-log", flags->authorization_log,
                  "Append every authorization decision to this file, one SubjectAccessReview "
                  "(JSON) a line: which requests a client makes and what allowed them");
  cmd->callback([flags, nodes, gpus, racks, metrics] {
    flags->shape_given = nodes->count() + gpus->count() + racks->count() > 0;
    flags->metrics_addr_given = metrics->count() > 0;
    throw CommandExit{runServe(*flags)};
  });
}

}  // namespace troupe::cmd
