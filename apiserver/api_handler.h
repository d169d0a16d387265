#pragma once

#include <atomic>
#include <memory>
#include <string>

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
  ApiHandler(ApiContext context, auth::TokenFile tokens, VersionInfo version,
             std::string server_address);

  http::Response handle(const http::Request& request);

  // Marks the server ready: /readyz answers ok from then on.
  void setReady(bool ready) { ready_ = ready; }

 private:
  http::Response handleResource(const http::Request& request, const std::string& group,
                                const std::string& version, const std::string& rest,
                                const auth::Identity& identity);

  ApiContext context_;
  auth::TokenFile tokens_;
  VersionInfo version_;
  std::string server_address_;
  Router public_routes_;  // no authentication needed
  Router routes_;
  std::atomic<bool> ready_{false};
};

}  // namespace troupe::apiserver
