#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

// The dashboard's pages as HTTP answers, the same in both modes: `troupe serve` answers them
// on the API server's port, `troupe operator --dashboard-addr` on its own. They are public:
// they hold no data, and the page asks for a token before it reads the API.
namespace troupe::dashboard {

// Where the dashboard lives, on either server.
inline constexpr std::string_view kPathPrefix = "/dashboard";

struct StaticAnswer {
  int status = 200;
  std::string content_type;
  std::string_view body;  // an embedded file's bytes, or a short message
  std::vector<std::pair<std::string, std::string>> headers;
};

// The answer to a GET of `path` (no query): "/dashboard" redirects to "/dashboard/", which
// is index.html; "/dashboard/<file>" is that file of dashboard/web/; anything else is 404.
// Every answer forbids framing, sniffing and sending referrers, allows only the page's own
// scripts, styles and API calls, and asks browsers to check for a newer build each time.
StaticAnswer staticFile(std::string_view path);

}  // namespace troupe::dashboard
