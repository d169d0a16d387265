#pragma once

#include <memory>
#include <string>

#include "common/result.h"
#include "dashboard/api_proxy.h"

// The dashboard in cluster mode (`troupe operator --dashboard-addr`): plain HTTP/1.1 on an
// address of its own, serving the dashboard's pages (dashboard/static_files.h) and
// forwarding its reads to the API server (dashboard/api_proxy.h) with each caller's token.
// A thread per connection, at most kMaxConnections at once: a dashboard has few viewers,
// each holding one connection per watch. Meant to be reached through `kubectl
// port-forward`, so the default address is the pod's loopback.
namespace troupe::dashboard {

class DashboardServer {
 public:
  static constexpr int kMaxConnections = 64;

  // `address` is "host:port" or ":port"; port 0 picks a free one.
  static Result<std::unique_ptr<DashboardServer>> start(const std::string& address,
                                                        std::unique_ptr<ApiProxy> proxy);
  virtual ~DashboardServer() = default;
  virtual int port() const = 0;
  // Stops accepting, ends every stream and joins every thread. Idempotent.
  virtual void stop() = 0;
};

}  // namespace troupe::dashboard
