#include "kube/rest_kube_client.h"

#include <fmt/format.h>

#include <random>
#include <thread>

#include "common/json_parse.h"
#include "kube/http_transport.h"

#ifndef TROUPE_VERSION
#define TROUPE_VERSION "0.0.0"
#endif

namespace troupe::kube {
namespace {

std::string escapeQueryValue(std::string_view value) {
  std::string out;
  for (unsigned char c : value) {
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
        c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

// Builds "path?k=v&k=v" from the parameters that are set, in the order given.
class Query {
 public:
  explicit Query(std::string path) : target_(std::move(path)) {}
  Query& add(std::string_view key, std::string_view value) {
    if (value.empty()) return *this;
    target_ += first_ ? '?' : '&';
    first_ = false;
    target_ += key;
    target_ += '=';
    target_ += escapeQueryValue(value);
    return *this;
  }
  const std::string& str() const { return target_; }

 private:
  std::string target_;
  bool first_ = true;
};

const char* patchContentType(PatchType type) {
  switch (type) {
    case PatchType::Merge: return "application/merge-patch+json";
    case PatchType::Json: return "application/json-patch+json";
    case PatchType::StrategicMerge: return "application/strategic-merge-patch+json";
    case PatchType::Apply: return "application/apply-patch+yaml";
  }
  return "application/merge-patch+json";
}

bool isIdempotent(const std::string& method) {
  return method == "GET" || method == "HEAD" || method == "PUT" || method == "DELETE";
}

std::optional<std::chrono::seconds> parseRetryAfter(const std::string& value) {
  if (value.empty() || value.size() > 6) return std::nullopt;
  long long seconds = 0;
  for (char c : value) {
    if (c < '0' || c > '9') return std::nullopt;  // an HTTP date: fall back on our backoff
    seconds = seconds * 10 + (c - '0');
  }
  return std::chrono::seconds(std::min<long long>(seconds, 300));
}

ApiError protocolError(std::string message) {
  return transportError(ErrorCode::Internal, transport_reason::kProtocol, std::move(message));
}

ApiResult<nlohmann::json> decodeBody(const HttpResponse& response, const std::string& what) {
  auto body = parseJson(response.body);
  if (body.is_discarded()) {
    return protocolError(fmt::format("{}: the answer ({} bytes, Content-Type \"{}\") is not JSON",
                                     what, response.body.size(), response.header("Content-Type")));
  }
  return body;
}

std::optional<WatchEventType> parseEventType(const std::string& type) {
  if (type == "ADDED") return WatchEventType::Added;
  if (type == "MODIFIED") return WatchEventType::Modified;
  if (type == "DELETED") return WatchEventType::Deleted;
  if (type == "BOOKMARK") return WatchEventType::Bookmark;
  if (type == "ERROR") return WatchEventType::Error;
  return std::nullopt;
}

// The token file could not be read: nothing was sent.
ApiError tokenError(const Error& cause) {
  ApiError error = transportError(cause.code, "TokenUnavailable", cause.message);
  error.field_path = cause.field_path;
  return error;
}

}  // namespace

Result<std::unique_ptr<RestKubeClient>> RestKubeClient::create(const ClientConfig& config) {
  TransportConfig tc;
  tc.server = config.server;
  tc.certificate_authority_pem = config.certificate_authority_pem;
  tc.client_certificate_pem = config.client_certificate_pem;
  tc.client_key_pem = config.client_key_pem;
  tc.insecure_skip_tls_verify = config.insecure_skip_tls_verify;
  tc.tls_server_name = config.tls_server_name;
  tc.max_idle_connections = config.max_idle_connections;
  auto transport = HttpTransport::create(tc);
  if (!transport) return transport.error();
  return std::unique_ptr<RestKubeClient>(new RestKubeClient(config, std::move(*transport)));
}

std::unique_ptr<RestKubeClient> RestKubeClient::create(const ClientConfig& config,
                                                       std::unique_ptr<Transport> transport) {
  return std::unique_ptr<RestKubeClient>(new RestKubeClient(config, std::move(transport)));
}

RestKubeClient::RestKubeClient(ClientConfig config, std::unique_ptr<Transport> transport)
    : config_(std::move(config)),
      user_agent_(config_.user_agent.empty()
                      ? fmt::format("troupe/{} (linux/amd64)", TROUPE_VERSION)
                      : config_.user_agent),
      transport_(std::move(transport)),
      limiter_(config_.qps, config_.burst),
      token_(config_.token, config_.token_file),
      backoff_(config_.retry_base_delay, config_.retry_max_delay, std::random_device{}()) {}

Status RestKubeClient::authorize(HttpRequest& request) {
  auto token = token_.current();
  if (!token) return token.error();
  std::erase_if(request.headers, [](const auto& h) { return h.first == "Authorization"; });
  if (!token->empty()) request.headers.emplace_back("Authorization", "Bearer " + *token);
  return {};
}

ApiResult<HttpResponse> RestKubeClient::sendWithRetries(HttpRequest& request) {
  request.headers.emplace_back("User-Agent", user_agent_);
  if (std::none_of(request.headers.begin(), request.headers.end(),
                   [](const auto& h) { return h.first == "Accept"; })) {
    request.headers.emplace_back("Accept", "application/json");
  }
  const bool idempotent = isIdempotent(request.method);
  bool refreshed_token = false;
  std::optional<ApiError> last;
  for (int attempt = 0; attempt <= config_.max_retries; ++attempt) {
    if (attempt > 0) {
      std::chrono::milliseconds wait;
      {
        std::lock_guard lock(backoff_mu_);
        wait = backoff_.delay(attempt - 1, last ? last->retry_after : std::nullopt);
      }
      retries_.fetch_add(1);
      std::this_thread::sleep_for(wait);
    }
    limiter_.acquire();
    if (auto s = authorize(request); !s) return tokenError(s.error());
    bool reused = false;
    auto response = transport_->send(request, config_.request_timeout, &reused);
    if (!response) {
      const ApiError& e = response.error();
      const bool never_reached = e.reason == transport_reason::kConnectFailed ||
                                 (reused && e.reason == transport_reason::kClosedBeforeResponse);
      const bool retry_if_safe = e.reason == transport_reason::kClosedBeforeResponse ||
                                 e.reason == transport_reason::kDroppedMidResponse ||
                                 e.reason == transport_reason::kTimeout;
      if (never_reached || (request.method == "GET" && retry_if_safe)) {
        last = e;
        continue;
      }
      return e;
    }
    const int status = response->status;
    if (status >= 200 && status < 300) return response;
    ApiError error = apiErrorFromResponse(status, response->body,
                                          parseRetryAfter(response->header("Retry-After")));
    last = error;
    if (status == 429) continue;
    if ((status == 500 || status == 502 || status == 503 || status == 504) && idempotent) continue;
    if (status == 401 && token_.fromFile() && !refreshed_token) {
      // The token may have rotated between our read and the server's check: read it again.
      refreshed_token = true;
      token_.invalidate();
      continue;
    }
    return error;
  }
  last->message =
      fmt::format("{} (gave up after {} attempts)", last->message, config_.max_retries + 1);
  return *last;
}

ApiResult<nlohmann::json> RestKubeClient::execute(HttpRequest request) {
  const std::string what = fmt::format("{} {}", request.method, request.target);
  auto response = sendWithRetries(request);
  if (!response) return response.error();
  if (response->body.empty()) return nlohmann::json::object();
  return decodeBody(*response, what);
}

ApiResult<nlohmann::json> RestKubeClient::get(const ObjectRef& ref) {
  return execute(HttpRequest{"GET", ref.path(), {}, {}});
}

ApiResult<nlohmann::json> RestKubeClient::getPath(const std::string& target,
                                                  const std::string& accept) {
  return execute(HttpRequest{"GET", target, {{"Accept", accept}}, {}});
}

ApiResult<std::string> RestKubeClient::getText(const std::string& target) {
  HttpRequest request{"GET", target, {{"Accept", "text/plain"}}, {}};
  auto response = sendWithRetries(request);
  if (!response) return response.error();
  return std::move(response->body);
}

ApiResult<nlohmann::json> RestKubeClient::list(const ResourceType& type, const std::string& ns,
                                               const ListOptions& options) {
  Query q(type.collectionPath(ns));
  q.add("labelSelector", options.label_selector)
      .add("fieldSelector", options.field_selector)
      .add("limit", options.limit > 0 ? std::to_string(options.limit) : "")
      .add("continue", options.continue_token)
      .add("resourceVersion", options.resource_version);
  return execute(HttpRequest{"GET", q.str(), {}, {}});
}

ApiResult<nlohmann::json> RestKubeClient::create(const ResourceType& type, const std::string& ns,
                                                 const nlohmann::json& object,
                                                 const WriteOptions& options) {
  Query q(type.collectionPath(ns));
  q.add("fieldManager", options.field_manager).add("dryRun", options.dry_run ? "All" : "");
  return execute(
      HttpRequest{"POST", q.str(), {{"Content-Type", "application/json"}}, object.dump()});
}

ApiResult<nlohmann::json> RestKubeClient::createSubresource(const ObjectRef& ref,
                                                            const nlohmann::json& body) {
  return execute(
      HttpRequest{"POST", ref.path(), {{"Content-Type", "application/json"}}, body.dump()});
}

ApiResult<nlohmann::json> RestKubeClient::update(const ObjectRef& ref, const nlohmann::json& object,
                                                 const WriteOptions& options) {
  Query q(ref.path());
  q.add("fieldManager", options.field_manager).add("dryRun", options.dry_run ? "All" : "");
  return execute(
      HttpRequest{"PUT", q.str(), {{"Content-Type", "application/json"}}, object.dump()});
}

ApiResult<nlohmann::json> RestKubeClient::patch(const ObjectRef& ref, const nlohmann::json& patch,
                                                const PatchOptions& options) {
  if (options.type == PatchType::Apply && options.field_manager.empty()) {
    ApiError error;
    error.code = ErrorCode::Invalid;
    error.field_path = "fieldManager";
    error.message = "Required value: server-side apply needs a field manager";
    return error;
  }
  Query q(ref.path());
  q.add("fieldManager", options.field_manager)
      .add("force", options.type == PatchType::Apply && options.force ? "true" : "")
      .add("dryRun", options.dry_run ? "All" : "");
  return execute(HttpRequest{
      "PATCH", q.str(), {{"Content-Type", patchContentType(options.type)}}, patch.dump()});
}

ApiResult<nlohmann::json> RestKubeClient::remove(const ObjectRef& ref,
                                                 const DeleteOptions& options) {
  nlohmann::json body = {{"apiVersion", "v1"}, {"kind", "DeleteOptions"}};
  if (options.propagation_policy) body["propagationPolicy"] = *options.propagation_policy;
  if (options.grace_period_seconds) body["gracePeriodSeconds"] = *options.grace_period_seconds;
  if (options.precondition_uid) body["preconditions"]["uid"] = *options.precondition_uid;
  if (options.precondition_resource_version) {
    body["preconditions"]["resourceVersion"] = *options.precondition_resource_version;
  }
  if (options.dry_run) body["dryRun"] = {"All"};
  return execute(
      HttpRequest{"DELETE", ref.path(), {{"Content-Type", "application/json"}}, body.dump()});
}

ApiResult<void> RestKubeClient::watch(const ResourceType& type, const std::string& ns,
                                      const WatchOptions& options,
                                      const std::function<void(WatchEvent&&)>& on_event,
                                      std::stop_token stop) {
  Query q(type.collectionPath(ns));
  q.add("watch", "true")
      .add("resourceVersion", options.resource_version)
      .add("allowWatchBookmarks", options.allow_bookmarks ? "true" : "")
      .add("labelSelector", options.label_selector)
      .add("fieldSelector", options.field_selector)
      .add("timeoutSeconds",
           options.timeout_seconds > 0 ? std::to_string(options.timeout_seconds) : "");
  HttpRequest request{
      "GET", q.str(), {{"Accept", "application/json"}, {"User-Agent", user_agent_}}, {}};
  limiter_.acquire();
  if (auto s = authorize(request); !s) return tokenError(s.error());
  // The stream may end on our side too: a line that is not an event stops it.
  std::stop_source local;
  std::stop_callback forward(stop, [&local] { local.request_stop(); });
  std::optional<ApiError> broken;
  std::string pending;
  auto on_body = [&](std::string_view data) {
    pending.append(data);
    std::size_t start = 0;
    for (std::size_t nl; (nl = pending.find('\n', start)) != std::string::npos; start = nl + 1) {
      std::string_view line(pending.data() + start, nl - start);
      if (line.empty() || broken) continue;
      auto frame = parseJson(line);
      std::optional<WatchEventType> event_type;
      if (frame.is_object() && frame.contains("type") && frame["type"].is_string()) {
        event_type = parseEventType(frame["type"].get<std::string>());
      }
      if (!event_type || !frame.contains("object") || !frame["object"].is_object()) {
        broken = protocolError(fmt::format("watch {}: not a watch event: {}", q.str(),
                                           std::string(line.substr(0, 200))));
        local.request_stop();
        continue;
      }
      on_event(WatchEvent{*event_type, std::move(frame["object"])});
    }
    pending.erase(0, start);
  };
  const auto timeout =
      std::chrono::seconds(options.timeout_seconds > 0 ? options.timeout_seconds : 3600) +
      std::chrono::seconds(30);
  auto response =
      transport_->stream(request, std::chrono::duration_cast<std::chrono::milliseconds>(timeout),
                         local.get_token(), on_body);
  if (broken) return *broken;
  if (!response) return response.error();
  if (response->status < 200 || response->status >= 300) {
    if (response->status == 401 && token_.fromFile()) token_.invalidate();
    return apiErrorFromResponse(response->status, response->body,
                                parseRetryAfter(response->header("Retry-After")));
  }
  return {};
}

}  // namespace troupe::kube
