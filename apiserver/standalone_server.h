#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "apiserver/api_server_metrics.h"
#include "apiserver/handlers/discovery.h"
#include "apiserver/http/http_message.h"
#include "apiserver/objects/object_service.h"
#include "apiserver/router.h"
#include "apiserver/storage/object_store.h"
#include "common/result.h"

// `troupe serve` without the command line: the HTTPS API server over an ObjectStore, with
// its certificate, tokens and kubeconfig in the data directory, the CRDs and the cluster's
// Nodes loaded at start, and the garbage collector running. The operator and simulated
// kubelets attach later, through handle() (the loopback, loopback/) or over HTTPS with the
// kubeconfig.
namespace troupe::apiserver {

struct StandaloneOptions {
  std::string data_dir = "./troupe-data";
  std::string address = "127.0.0.1";
  std::uint16_t port = 6443;          // 0: any free port
  std::string cluster_file;           // YAML of Node objects; empty: none
  std::vector<nlohmann::json> nodes;  // Node objects created at start too, when missing
  std::vector<std::string> crd_dirs;  // every *.yaml in them is applied at start
  // YAML texts of CRDs applied at start as well (the binary's own, api/crd_manifests.h).
  std::vector<std::string> crd_manifests;
  VersionInfo version;
  std::size_t io_threads = 2;
  // Handlers block until their write is durable; every handler waiting at once shares one
  // fsync (group commit), so more of them means more writes per fsync, not more CPU.
  std::size_t worker_threads = 32;
  std::size_t body_limit = 3 * 1024 * 1024;
  // Appends every authorization decision to this file (auth/decision_log.h); empty: none.
  std::string authorization_log;
  // Routes beyond the Kubernetes API (the dashboard's pages, /metrics); an admin-only one
  // needs an admin's token, a public one no token at all.
  struct Route {
    bool admin_only = true;
    std::string method = "GET";
    std::string pattern;
    RouteHandler handler;
  };
  std::vector<Route> routes;
  // Counts requests and their latency (null: not counted); outlives the server.
  ApiServerMetrics* metrics = nullptr;
  // Checks writes as the chart's validating webhooks do in a cluster (admission/). Off, the
  // server admits what the CRD schemas allow, as a cluster without the webhooks.
  bool admission = true;
};

class StandaloneServer {
 public:
  StandaloneServer(StandaloneOptions options, std::unique_ptr<ObjectStore> store);
  ~StandaloneServer();
  StandaloneServer(const StandaloneServer&) = delete;
  StandaloneServer& operator=(const StandaloneServer&) = delete;

  Status start();
  void stop();

  std::uint16_t port() const;
  std::string kubeconfigPath() const;
  std::string adminToken() const;
  ObjectService& objects();

  // Answers one request as the HTTPS sessions do (authentication, routing, admission,
  // storage; a watch as a stream), on the calling thread. Between start() and stop() only.
  http::Response handle(const http::Request& request);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// "127.0.0.1:6443" -> address and port; an Invalid error names the rule.
Result<std::pair<std::string, std::uint16_t>> parseListen(const std::string& listen);

}  // namespace troupe::apiserver
