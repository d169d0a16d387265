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
#include "kube/transport.h"

// HTTP/1.1 to one API server over Boost.Beast, plain or TLS, with a small pool of
// keep-alive connections. This header keeps Beast and Asio out of its includers.
//
// Threading: every method is thread-safe. A call borrows a connection (from the idle pool
// or a new one), drives it on the calling thread with the connection's own io_context, and
// gives it back to the pool if the server kept it alive. No thread is started here.
namespace troupe::kube {

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

class HttpTransport final : public Transport {
 public:
  // Errors name the field that is wrong (server, certificate-authority-data, client-key-data).
  static Result<std::unique_ptr<HttpTransport>> create(const TransportConfig& config);
  ~HttpTransport();
  HttpTransport(const HttpTransport&) = delete;
  HttpTransport& operator=(const HttpTransport&) = delete;

  // A pooled keep-alive connection, or a new one, carries the request.
  ApiResult<HttpResponse> send(const HttpRequest& request, std::chrono::milliseconds timeout,
                               bool* reused = nullptr) override;

  // A connection of its own carries the stream for its whole length.
  ApiResult<HttpResponse> stream(const HttpRequest& request, std::chrono::milliseconds timeout,
                                 std::stop_token stop,
                                 const std::function<void(std::string_view)>& on_body) override;

  // "host:port" as sent in the Host header, and whether TLS is used.
  const std::string& hostHeader() const;
  bool tls() const;

  struct State;  // Beast and OpenSSL state, defined in the .cc

 private:
  explicit HttpTransport(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace troupe::kube
