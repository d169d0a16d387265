#pragma once

#include <functional>
#include <memory>
#include <string>

#include "common/result.h"

// A tiny HTTP/1.1 server for /metrics, /healthz and /readyz: GET only, one thread,
// one request per connection, bodies produced by a handler. Kept apart from the API
// server: it must answer while the operator is busy or not leading.
namespace troupe::operator_runtime {

struct HttpAnswer {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
};

using HttpHandler = std::function<HttpAnswer(const std::string& path)>;

class HttpEndpoint {
 public:
  // `address` is "host:port" or ":port" (all interfaces); port 0 picks a free one.
  static Result<std::unique_ptr<HttpEndpoint>> start(const std::string& address,
                                                     HttpHandler handler);
  virtual ~HttpEndpoint() = default;
  virtual int port() const = 0;
  virtual void stop() = 0;
};

}  // namespace troupe::operator_runtime
