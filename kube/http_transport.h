#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"
#include "kube/api_error.h"

// HTTP/1.1 to one API server over Boost.Beast, plain or TLS, with a small pool of
// keep-alive connections. This header keeps Beast and Asio out of its includers.
//
// Threading: every method is thread-safe. A call borrows a connection (from the idle pool
// or a new one), drives it on the calling thread with the connection's own io_context, and
// gives it back to the pool if the server kept it alive. No thread is started here.
namespace troupe::kube {

struct HttpRequest {
  std::string method = "GET";  // GET, POST, PUT, PATCH, DELETE
  std::string target;          // path and query, already escaped
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

struct HttpResponse {
  int status = 0;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;

  // The first header called `name` (case-insensitive), or "".
  std::string header(std::string_view name) const;
};

struct TransportConfig {
  std::string server;  // https://host:port or http://host:port
  std::string certificate_authority_pem;
  std::string client_certificate_pem;
  std::string client_key_pem;
  bool insecure_skip_tls_verify = false;
  std::string tls_server_name;
  int max_idle_connections = 4;
  std::size_t max_body_bytes = 512u << 20;  // a large pod list still fits
};

// Why a call got no (complete) answer; the retry policy reads these from ApiError::reason.
namespace transport_reason {
inline constexpr const char* kConnectFailed = "ConnectFailed";
inline constexpr const char* kTlsFailed = "TLSHandshakeFailed";
// The connection closed before a byte of the answer came back. On a reused keep-alive
// connection this is the server closing an idle connection: the request was not processed.
inline constexpr const char* kClosedBeforeResponse = "ConnectionClosedBeforeResponse";
inline constexpr const char* kDroppedMidResponse = "ConnectionDroppedMidResponse";
inline constexpr const char* kTimeout = "Timeout";
inline constexpr const char* kCancelled = "Cancelled";
inline constexpr const char* kProtocol = "ProtocolError";
}  // namespace transport_reason

class HttpTransport {
 public:
  // Errors name the field that is wrong (server, certificate-authority-data, client-key-data).
  static Result<std::unique_ptr<HttpTransport>> create(const TransportConfig& config);
  ~HttpTransport();
  HttpTransport(const HttpTransport&) = delete;
  HttpTransport& operator=(const HttpTransport&) = delete;

  // One attempt: sends `request`, reads the whole answer (any status) within `timeout`.
  // `reused` tells whether a pooled connection carried it.
  ApiResult<HttpResponse> send(const HttpRequest& request, std::chrono::milliseconds timeout,
                               bool* reused = nullptr);

  // One attempt for a long-lived answer (a watch) on a connection of its own: a 2xx body is
  // passed to `on_body` piece by piece as it arrives and the returned response has an empty
  // body; any other status is read whole and returned. Ends when the server ends the body
  // (success), when `stop` is requested (reason Cancelled), at `timeout`, or on a drop.
  ApiResult<HttpResponse> stream(const HttpRequest& request, std::chrono::milliseconds timeout,
                                 std::stop_token stop,
                                 const std::function<void(std::string_view)>& on_body);

  // "host:port" as sent in the Host header, and whether TLS is used.
  const std::string& hostHeader() const;
  bool tls() const;

  struct State;  // Beast and OpenSSL state, defined in the .cc

 private:
  explicit HttpTransport(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace troupe::kube
