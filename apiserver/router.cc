#include "apiserver/router.h"

namespace troupe::apiserver {

std::vector<std::string> splitPath(const std::string& path) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < path.size()) {
    auto slash = path.find('/', start);
    if (slash == std::string::npos) slash = path.size();
    if (slash > start) out.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  return out;
}

void Router::add(std::string method, std::string pattern, RouteHandler handler) {
  routes_.push_back({std::move(method), std::move(pattern), std::move(handler)});
}

std::optional<RouteParams> Router::match(const std::string& pattern, const std::string& path) {
  auto want = splitPath(pattern);
  auto got = splitPath(path);
  RouteParams params;
  for (std::size_t i = 0; i < want.size(); ++i) {
    const std::string& w = want[i];
    bool capture = w.size() >= 2 && w.front() == '{' && w.back() == '}';
    if (capture && w.size() > 5 && w.compare(w.size() - 4, 4, "...}") == 0) {
      std::string rest;
      for (std::size_t j = i; j < got.size(); ++j) rest += (j == i ? "" : "/") + got[j];
      if (rest.empty()) return std::nullopt;
      params[w.substr(1, w.size() - 5)] = rest;
      return params;
    }
    if (i >= got.size()) return std::nullopt;
    if (capture) {
      params[w.substr(1, w.size() - 2)] = got[i];
    } else if (w != got[i]) {
      return std::nullopt;
    }
  }
  if (got.size() != want.size()) return std::nullopt;
  return params;
}

std::optional<http::Response> Router::route(const http::Request& request) const {
  for (const auto& route : routes_) {
    if (route.method != "*" && route.method != request.method) continue;
    if (auto params = match(route.pattern, request.path)) return route.handler(request, *params);
  }
  return std::nullopt;
}

}  // namespace troupe::apiserver
