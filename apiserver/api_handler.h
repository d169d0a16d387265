#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>

#include "apiserver/api_server_metrics.h"
#include "apiserver/auth/authorizer.h"
#include "apiserver/auth/token_file.h"
#include "apiserver/handlers/discovery.h"
#include "apiserver/handlers/rest_request.h"
#include "apiserver/http/http_message.h"
#include "apiserver/router.h"

// The whole REST surface as one function of a request: authenticate, route (a table of
// routes, then a table of verbs for resource paths), authorise, dispatch.
namespace troupe::apiserver {

class ApiHandler {
 public:
  ApiHandler(ApiContext context, auth::TokenFile tokens,
             std::unique_ptr<auth::Authorizer> authorizer, VersionInfo version,
             std::string server_address);

  http::Response handle(const http::Request& request);

  // Marks the server ready: /readyz answers ok from then on.
  void setReady(bool ready) { ready_ = ready; }

  // Who may call a route added from outside the REST surface (the dashboard, /metrics).
  enum class Access { Public, Admin };
  // Adds such a route; before the server serves. An Admin route answers 401 without a
  // token and 403 to a token that is not an admin's.
  void addRoute(Access access, std::string method, std::string pattern, RouteHandler handler);
  // Counts every request and its latency from then on (null: none); before it serves.
  void setMetrics(ApiServerMetrics* metrics) { metrics_ = metrics; }

 private:
  http::Response answer(const http::Request& request);
  http::Response handleResource(const http::Request& request, const std::string& group,
                                const std::string& version, const std::string& rest,
                                const auth::Identity& identity);
  // The OwnerReferencesPermissionEnforcement check of a create (auth/owner_reference_check.h):
  // the Forbidden message when an owner reference that blocks deletion is not allowed.
  std::optional<std::string> ownerReferenceDenial(const std::string& body, const ResourceKind& kind,
                                                  const std::string& ns,
                                                  const auth::Identity& identity);

  ApiContext context_;
  auth::TokenFile tokens_;
  std::unique_ptr<auth::Authorizer> authorizer_;
  VersionInfo version_;
  std::string server_address_;
  Router public_routes_;  // no authentication needed
  Router routes_;
  ApiServerMetrics* metrics_ = nullptr;
  std::atomic<bool> ready_{false};
};

}  // namespace troupe::apiserver
