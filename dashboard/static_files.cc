#include "dashboard/static_files.h"

#include "dashboard/web_files.h"

namespace troupe::dashboard {
namespace {

std::string contentType(std::string_view file) {
  auto ends = [&](std::string_view suffix) {
    return file.size() >= suffix.size() && file.substr(file.size() - suffix.size()) == suffix;
  };
  if (ends(".html")) return "text/html; charset=utf-8";
  if (ends(".css")) return "text/css; charset=utf-8";
  if (ends(".js")) return "text/javascript; charset=utf-8";
  if (ends(".svg")) return "image/svg+xml";
  return "application/octet-stream";
}

StaticAnswer withSecurityHeaders(StaticAnswer answer) {
  answer.headers.emplace_back("Content-Security-Policy",
                              "default-src 'none'; script-src 'self'; style-src 'self'; "
                              "connect-src 'self'; img-src 'self' data:; "
                              "frame-ancestors 'none'; base-uri 'none'; form-action 'self'");
  answer.headers.emplace_back("X-Content-Type-Options", "nosniff");
  answer.headers.emplace_back("Referrer-Policy", "no-referrer");
  answer.headers.emplace_back("Cache-Control", "no-cache");
  return answer;
}

}  // namespace

StaticAnswer staticFile(std::string_view path) {
  if (path == kPathPrefix) {
    StaticAnswer redirect{301, "text/plain; charset=utf-8", "moved to /dashboard/\n", {}};
    redirect.headers.emplace_back("Location", std::string(kPathPrefix) + "/");
    return withSecurityHeaders(std::move(redirect));
  }
  if (path.size() > kPathPrefix.size() && path.substr(0, kPathPrefix.size()) == kPathPrefix &&
      path[kPathPrefix.size()] == '/') {
    std::string_view file = path.substr(kPathPrefix.size() + 1);
    if (file.empty()) file = "index.html";
    for (const auto& embedded : webFiles())
      if (embedded.path == file)
        return withSecurityHeaders({200, contentType(file), embedded.content, {}});
  }
  return withSecurityHeaders({404, "text/plain; charset=utf-8", "404 page not found\n", {}});
}

}  // namespace troupe::dashboard
