#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include "common/result.h"
#include "kube/backoff.h"
#include "kube/bearer_token.h"
#include "kube/client_config.h"
#include "kube/kube_client.h"
#include "kube/token_bucket.h"
#include "kube/transport.h"

// KubeClient over the Kubernetes REST API: it builds each request (path, query, body, headers)
// and reads each answer into JSON or an ApiError. A Transport carries them: HTTP/1.1 over
// Boost.Beast and OpenSSL to a real kube-apiserver or `troupe serve` (create(config)), or the
// loopback into the embedded server's handlers that `troupe serve` gives its own operator and
// kubelets (create(config, transport)).
//
// Every request: one token from the client-side rate limiter per attempt, a deadline per
// attempt (config.request_timeout), `Accept: application/json`, `User-Agent: troupe/<version>`,
// the bearer token (re-read from its file when it changes). Retries, with exponential
// backoff and jitter (a server's Retry-After wins when longer), up to config.max_retries:
//   - 429 Too Many Requests, for every method;
//   - 500, 502, 503, 504 for GET, PUT and DELETE (PUT carries a resourceVersion and DELETE
//     is idempotent, so a repeat cannot apply twice);
//   - a failed connect, or a pooled keep-alive connection closed before any answer byte,
//     for every method (the server never saw the request);
//   - a connection dropped mid-answer or a deadline passed, for GET only.
//   - 401 once, when the token comes from a file that changed since it was read.
// Threading: thread-safe; calls block the calling thread; no thread is started here (see
// HttpTransport). Over HTTP, watches open a connection of their own for their whole length.
namespace troupe::kube {

class RestKubeClient final : public KubeClient {
 public:
  // Over HTTP to config.server, with its TLS settings; errors name the field that is wrong.
  static Result<std::unique_ptr<RestKubeClient>> create(const ClientConfig& config);
  // Over `transport`; config.server and the TLS settings are not read.
  static std::unique_ptr<RestKubeClient> create(const ClientConfig& config,
                                                std::unique_ptr<Transport> transport);

  ApiResult<nlohmann::json> get(const ObjectRef& ref) override;
  ApiResult<nlohmann::json> list(const ResourceType& type, const std::string& ns,
                                 const ListOptions& options) override;
  ApiResult<nlohmann::json> create(const ResourceType& type, const std::string& ns,
                                   const nlohmann::json& object,
                                   const WriteOptions& options) override;
  ApiResult<nlohmann::json> createSubresource(const ObjectRef& ref,
                                              const nlohmann::json& body) override;
  ApiResult<nlohmann::json> update(const ObjectRef& ref, const nlohmann::json& object,
                                   const WriteOptions& options) override;
  ApiResult<nlohmann::json> patch(const ObjectRef& ref, const nlohmann::json& patch,
                                  const PatchOptions& options) override;
  ApiResult<nlohmann::json> remove(const ObjectRef& ref, const DeleteOptions& options) override;
  ApiResult<void> watch(const ResourceType& type, const std::string& ns,
                        const WatchOptions& options,
                        const std::function<void(WatchEvent&&)>& on_event,
                        std::stop_token stop) override;

  // A GET of any path ("/version", "/apis") with the retries above, answered as JSON.
  // `accept` replaces application/json (e.g. the Table media type kubectl asks for).
  ApiResult<nlohmann::json> getPath(const std::string& target,
                                    const std::string& accept = "application/json");
  // A GET of a path whose answer is text, not JSON (the API server's "/metrics"), with the
  // retries above.
  ApiResult<std::string> getText(const std::string& target);

  const ClientConfig& config() const { return config_; }
  const std::string& userAgent() const { return user_agent_; }
  // Attempts that were retries (for metrics and tests).
  std::uint64_t retries() const { return retries_.load(); }

 private:
  RestKubeClient(ClientConfig config, std::unique_ptr<Transport> transport);

  // Sends with rate limiting, authentication and retries; decodes a 2xx JSON body.
  ApiResult<nlohmann::json> execute(HttpRequest request);
  ApiResult<HttpResponse> sendWithRetries(HttpRequest& request);
  Status authorize(HttpRequest& request);

  const ClientConfig config_;
  const std::string user_agent_;
  std::unique_ptr<Transport> transport_;
  TokenBucket limiter_;
  BearerToken token_;
  std::mutex backoff_mu_;
  Backoff backoff_;  // guarded by backoff_mu_
  std::atomic<std::uint64_t> retries_{0};
};

}  // namespace troupe::kube
