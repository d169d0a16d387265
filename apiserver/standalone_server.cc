#include "apiserver/standalone_server.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "admission/object_admission.h"
#include "api/core/pod.h"
#include "api/well_known.h"
#include "apiserver/api_handler.h"
#include "apiserver/auth/token_file.h"
#include "apiserver/garbage_collector.h"
#include "apiserver/handlers/watch.h"
#include "apiserver/handlers/yaml_json.h"
#include "apiserver/http/https_server.h"
#include "apiserver/kubeconfig.h"
#include "apiserver/objects/crd_schema_validator.h"
#include "apiserver/objects/object_meta.h"
#include "apiserver/store_cluster_view.h"
#include "apiserver/tls/self_signed_certificate.h"
#include "common/check.h"
#include "common/json_member.h"
#include "common/log.h"

namespace troupe::apiserver {

namespace {

using json = nlohmann::json;

Result<std::string> readFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return makeError(ErrorCode::NotFound, path, "cannot read file");
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// Documents of a YAML file, with `kind: List` unpacked.
Result<std::vector<json>> objectsInFile(const std::string& path) {
  auto text = readFile(path);
  if (!text) return text.error();
  // The admin's own files: no size limit beyond the machine's (the alias rule still holds).
  auto docs = yamlDocumentsToJson(*text, YamlLimits{kMaxYamlDepth, SIZE_MAX});
  if (!docs) return makeError(ErrorCode::Invalid, path, docs.error().message);
  std::vector<json> out;
  for (auto& doc : *docs) {
    if (doc.is_object() && doc.value("kind", "") == "List" && doc.contains("items")) {
      for (auto& item : doc["items"]) out.push_back(item);
    } else {
      out.push_back(doc);
    }
  }
  return out;
}

// A pod on create, as kube-apiserver validates it before any webhook sees it, for the
// fields Troupe reads.
std::optional<ApiError> validateNewPod(const ResourceKind& kind, const json& pod) {
  std::vector<Error> errors;
  auto decoded = api::core::Pod::fromJson(pod, errors);
  if (errors.empty()) errors = decoded.validate();
  if (errors.empty()) return std::nullopt;
  api::StatusTarget target{kind.group, kind.resource, kind.kind, metaString(pod, "name")};
  return ApiError{422, json(api::statusFromErrors(errors, target))};
}

// The checks the chart's validating webhooks make in a cluster (admission/), on writes of
// Troupe's kinds and on new pods that name a queue, answered as kube-apiserver answers a
// webhook's refusal.
std::optional<ApiError> admitWrite(const admission::ClusterView& view, const ResourceKind& kind,
                                   const json& object, const json* old) {
  const bool pod = kind.group.empty() && kind.resource == "pods";
  if (pod && old == nullptr) {
    if (auto refused = validateNewPod(kind, object)) return refused;
  }
  if (!pod && kind.group != api::kGroup) return std::nullopt;
  admission::AdmissionRequest request;
  request.operation = old ? admission::Operation::Update : admission::Operation::Create;
  request.kind = kind.kind;
  request.ns = kind.namespaced ? metaString(object, "namespace") : "";
  request.object = &object;
  request.old_object = old;
  auto verdict = admission::admit(request, view);
  if (verdict.allowed()) return std::nullopt;
  api::StatusTarget target{kind.group, kind.resource, kind.kind, metaString(object, "name")};
  auto status = admission::deniedBy(pod ? admission::kPodWebhookName : admission::kWebhookName,
                                    verdict.status(target));
  return ApiError{verdict.code(), json(status)};
}

}  // namespace

Result<std::pair<std::string, std::uint16_t>> parseListen(const std::string& listen) {
  auto colon = listen.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == listen.size())
    return makeError(ErrorCode::Invalid, "--listen",
                     "expected ADDRESS:PORT, got \"" + listen + "\"");
  std::string port_text = listen.substr(colon + 1);
  if (port_text.find_first_not_of("0123456789") != std::string::npos || port_text.size() > 5 ||
      std::stoi(port_text) > 65535)
    return makeError(ErrorCode::Invalid, "--listen",
                     "port must be a number from 0 to 65535, got \"" + port_text + "\"");
  return std::make_pair(listen.substr(0, colon), static_cast<std::uint16_t>(std::stoi(port_text)));
}

struct StandaloneServer::State {
  StandaloneOptions options;
  std::unique_ptr<ObjectStore> store;
  SystemTimeSource clock;
  ResourceRegistry registry;
  std::unique_ptr<ObjectService> objects;
  CrdSchemaValidator schemas;
  std::unique_ptr<GarbageCollector> gc;
  std::unique_ptr<StoreClusterView> cluster_view;
  std::unique_ptr<FanOutObserver> observers;
  std::unique_ptr<WatchTicker> ticker;
  std::unique_ptr<ApiHandler> handler;
  std::unique_ptr<http::HttpsServer> server;
  std::uint16_t port = 0;
  std::string kubeconfig;
  std::string admin_token;
  bool started = false;
};

StandaloneServer::StandaloneServer(StandaloneOptions options, std::unique_ptr<ObjectStore> store)
    : state_(std::make_unique<State>()) {
  state_->options = std::move(options);
  state_->store = std::move(store);
  state_->objects =
      std::make_unique<ObjectService>(*state_->store, state_->registry, state_->clock);
  CrdSchemaValidator* schemas = &state_->schemas;
  state_->objects->setSchemaValidator(
      [schemas](const ResourceKind& kind, nlohmann::json& object, const nlohmann::json* old) {
        return schemas->check(kind, object, old);
      });
  state_->cluster_view = std::make_unique<StoreClusterView>(*state_->store);
  StoreClusterView* view = state_->cluster_view.get();
  if (state_->options.admission)
    state_->objects->setAdmissionCheck(
        [view](const ResourceKind& kind, const nlohmann::json& object, const nlohmann::json* old) {
          return admitWrite(*view, kind, object, old);
        });
}

StandaloneServer::~StandaloneServer() { stop(); }

ObjectService& StandaloneServer::objects() { return *state_->objects; }

http::Response StandaloneServer::handle(const http::Request& request) {
  TROUPE_CHECK(state_->handler != nullptr, "StandaloneServer::handle before start()");
  return state_->handler->handle(request);
}

std::uint16_t StandaloneServer::port() const { return state_->port; }
std::string StandaloneServer::kubeconfigPath() const { return state_->kubeconfig; }
std::string StandaloneServer::adminToken() const { return state_->admin_token; }

Status StandaloneServer::start() {
  auto& s = *state_;
  const auto& options = s.options;
  std::error_code ec;
  std::filesystem::create_directories(options.data_dir, ec);
  if (ec)
    return makeError(ErrorCode::Internal, "--data-dir",
                     "cannot create " + options.data_dir + ": " + ec.message());

  // Kinds of the CRDs already stored come first, so their objects are served at once.
  ResourceKind crd_kind =
      *s.registry.find("apiextensions.k8s.io", "v1", "customresourcedefinitions");
  {
    ListOptions list;
    list.resource = crd_kind.storageName();
    auto crds = s.store->list(list);
    if (!crds) return crds.error();
    for (const auto& item : crds->items) {
      if (auto applied = s.registry.applyCrd(item.object); !applied)
        log::warn("stored CRD not served",
                  {{"name", item.key.name}, {"error", applied.error().describe()}});
    }
  }

  s.gc = std::make_unique<GarbageCollector>(*s.objects);
  s.observers = std::make_unique<FanOutObserver>(
      std::vector<WriteObserver*>{s.gc.get(), s.cluster_view.get()});
  s.objects->setObserver(s.observers.get());

  ResourceKind ns_kind = *s.registry.find("", "v1", "namespaces");
  for (const char* ns : {"default", "kube-system", "kube-public", "kube-node-lease"}) {
    if (s.store->get({"namespaces", "", ns})) continue;
    auto made = s.objects->create(ns_kind, "", json{{"metadata", {{"name", ns}}}}, false);
    if (!made) return makeError(ErrorCode::Internal, "namespaces", made.error().status.dump());
  }

  // Creates a CRD, or brings a stored one's spec up to date; `origin` names the source.
  auto apply_crds = [&](std::vector<json>& docs, const std::string& origin) -> Status {
    for (auto& doc : docs) {
      if (!doc.is_object() || doc.value("kind", "") != "CustomResourceDefinition") continue;
      std::string name = metaString(doc, "name");
      auto existing = s.store->get({crd_kind.storageName(), "", name});
      ApiResult<StoredObject> result = existing ? s.objects->mutate(
                                                      crd_kind, "", name,
                                                      [&](const json& current) -> ApiResult<json> {
                                                        json next = current;
                                                        next["spec"] = doc["spec"];
                                                        return next;
                                                      },
                                                      Subresource::Main, false)
                                                : s.objects->create(crd_kind, "", doc, false);
      if (!result)
        return makeError(ErrorCode::Invalid, origin,
                         "CRD " + name + ": " + result.error().status.value("message", ""));
    }
    return {};
  };
  for (std::size_t i = 0; i < options.crd_manifests.size(); ++i) {
    const std::string origin = "built-in CRD manifest " + std::to_string(i);
    auto docs = yamlDocumentsToJson(options.crd_manifests[i]);
    if (!docs) return makeError(ErrorCode::Invalid, origin, docs.error().message);
    if (auto applied = apply_crds(*docs, origin); !applied) return applied;
  }
  for (const auto& dir : options.crd_dirs) {
    if (!std::filesystem::is_directory(dir))
      return makeError(ErrorCode::NotFound, "--crds", "not a directory: " + dir);
    std::vector<std::string> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir))
      if (entry.path().extension() == ".yaml" || entry.path().extension() == ".yml")
        files.push_back(entry.path().string());
    std::sort(files.begin(), files.end());
    for (const auto& file : files) {
      auto docs = objectsInFile(file);
      if (!docs) return docs.error();
      if (auto applied = apply_crds(*docs, file); !applied) return applied;
    }
  }

  // Creates the Nodes that do not exist yet; `origin` names the source.
  ResourceKind node_kind = *s.registry.find("", "v1", "nodes");
  auto create_nodes = [&](std::vector<json> docs, const std::string& origin) -> Status {
    for (auto& doc : docs) {
      if (!doc.is_object() || doc.value("kind", "") != "Node") continue;
      std::string name = metaString(doc, "name");
      if (s.store->get({"nodes", "", name})) continue;
      // Recorded as `kubectl apply` records what it applied, so that applying the same file
      // later (`kubectl apply -f examples/`) finds the nodes unchanged instead of warning.
      json applied = doc;
      doc["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"] =
          applied.dump() + "\n";
      auto made = s.objects->create(node_kind, "", doc, false);
      if (!made)
        return makeError(ErrorCode::Invalid, origin,
                         "Node " + name + ": " + made.error().status.value("message", ""));
    }
    return {};
  };
  if (!options.cluster_file.empty()) {
    auto docs = objectsInFile(options.cluster_file);
    if (!docs) return docs.error();
    if (auto made = create_nodes(std::move(*docs), options.cluster_file); !made) return made;
  }
  if (auto made = create_nodes(options.nodes, "the built-in cluster"); !made) return made;

  if (auto started = s.gc->start(); !started) return started;

  auto cert = tls::ensureSelfSignedCertificate(options.data_dir);
  if (!cert) return cert.error();
  auto tokens = auth::TokenFile::loadOrCreate(options.data_dir + "/tokens");
  if (!tokens) return tokens.error();
  s.admin_token = tokens->adminToken();
  if (s.admin_token.empty())
    return makeError(ErrorCode::Invalid, options.data_dir + "/tokens",
                     "no admin token (scope `*`) in the token file");

  s.ticker = std::make_unique<WatchTicker>();
  ApiContext context{*s.objects, s.registry, s.clock, *s.ticker};
  std::unique_ptr<auth::DecisionLog> decisions;
  if (!options.authorization_log.empty()) {
    auto opened = auth::DecisionLog::open(options.authorization_log);
    if (!opened) return opened.error();
    decisions = std::move(*opened);
  }
  auto authorizer = std::make_unique<auth::Authorizer>(*s.store, std::move(decisions));
  s.handler = std::make_unique<ApiHandler>(context, std::move(tokens.value()),
                                           std::move(authorizer), options.version,
                                           options.address + ":" + std::to_string(options.port));
  for (const auto& route : options.routes)
    s.handler->addRoute(route.admin_only ? ApiHandler::Access::Admin : ApiHandler::Access::Public,
                        route.method, route.pattern, route.handler);
  s.handler->setMetrics(options.metrics);
  http::ServerOptions server_options;
  server_options.address = options.address;
  server_options.port = options.port;
  server_options.cert_file = cert->cert_file;
  server_options.key_file = cert->key_file;
  server_options.io_threads = options.io_threads;
  server_options.worker_threads = options.worker_threads;
  server_options.body_limit = options.body_limit;
  ApiHandler* handler = s.handler.get();
  s.server = std::make_unique<http::HttpsServer>(
      server_options, [handler](const http::Request& request) { return handler->handle(request); });
  auto port = s.server->start();
  if (!port) return port.error();
  s.port = *port;
  s.kubeconfig = options.data_dir + "/kubeconfig";
  std::string url = "https://" + options.address + ":" + std::to_string(s.port);
  // A kubeconfig that cannot be written (a full or read-only disk) leaves the previous one
  // whole; the server still serves what it can (reads), and says why.
  if (auto written = writeKubeconfig(s.kubeconfig, url, cert->cert_pem, s.admin_token); !written)
    log::warn("kubeconfig not rewritten; the previous file is kept",
              {{"error", written.error().describe()}});
  s.handler->setReady(true);
  s.started = true;
  log::info("serving", {{"url", url}, {"kubeconfig", s.kubeconfig}});
  return {};
}

void StandaloneServer::stop() {
  auto& s = *state_;
  if (s.handler) s.handler->setReady(false);
  if (s.server) s.server->stop();
  if (s.ticker) s.ticker->stop();
  if (s.gc) s.gc->stop();
  s.objects->setObserver(nullptr);
  s.started = false;
}

}  // namespace troupe::apiserver
