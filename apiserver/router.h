#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "apiserver/http/http_message.h"

// A table of routes: a method (or "*") and a path pattern of literal segments,
// `{name}` captures and a final `{name...}` that captures the rest. Routes are tried in
// the order added; the first match wins.
namespace troupe::apiserver {

using RouteParams = std::map<std::string, std::string>;
using RouteHandler = std::function<http::Response(const http::Request&, const RouteParams&)>;

class Router {
 public:
  void add(std::string method, std::string pattern, RouteHandler handler);
  // nullopt when no route matches.
  std::optional<http::Response> route(const http::Request& request) const;

  // Matches `path` against `pattern`; exposed for tests.
  static std::optional<RouteParams> match(const std::string& pattern, const std::string& path);

 private:
  struct Route {
    std::string method;
    std::string pattern;
    RouteHandler handler;
  };
  std::vector<Route> routes_;
};

std::vector<std::string> splitPath(const std::string& path);

}  // namespace troupe::apiserver
