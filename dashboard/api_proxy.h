#pragma once

#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"
#include "kube/client_config.h"
#include "kube/transport.h"

// The dashboard's reads of the Kubernetes API in cluster mode, forwarded to the API server
// with the caller's own bearer token: the API server authenticates and authorises every
// read as the person at the browser, exactly as it would their kubectl, and the operator's
// own credentials are never used for them (no client certificate is sent, and a request
// without a token is refused here). Only GET reaches the API: the dashboard is read-only.
namespace troupe::dashboard {

struct ProxyAnswer {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
};

class ApiProxy {
 public:
  // Reaches config.server with its TLS verification settings (CA, server name, insecure).
  static Result<std::unique_ptr<ApiProxy>> create(const kube::ClientConfig& config);
  explicit ApiProxy(std::unique_ptr<kube::Transport> transport);

  // Whether `path` is one this proxy serves: /api, /apis, /version and below.
  static bool handles(std::string_view path);

  // Answers `method target` (target: path and query) for a caller that sent
  // `authorization`. A watch (watch=true or 1) is a stream: `start` is called once with
  // the 200 answer's content type, then `on_body` with each piece of newline-delimited
  // events until the API server ends it, `stop` is requested, or `on_body` returns false
  // (the browser left); a failure after the start arrives as a watch ERROR event with a
  // Status, as the API server reports one. Anything else is answered whole.
  ProxyAnswer answer(const std::string& method, const std::string& target,
                     const std::string& authorization, std::stop_token stop,
                     const std::function<void(const std::string& content_type)>& start,
                     const std::function<bool(std::string_view)>& on_body);

 private:
  std::unique_ptr<kube::Transport> transport_;
};

// Whether `target`'s query asks for a watch (watch=true or watch=1).
bool isWatch(std::string_view target);

}  // namespace troupe::dashboard
