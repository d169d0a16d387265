#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "dashboard/static_files.h"
#include "dashboard/web_files.h"

using namespace troupe::dashboard;

namespace {

std::string header(const StaticAnswer& answer, const std::string& name) {
  for (const auto& [k, v] : answer.headers)
    if (k == name) return v;
  return "";
}

}  // namespace

TEST_CASE("the binary holds every file of dashboard/web as it is in the sources",
          "[dashboard][static]") {
  // index.html, dashboard.css and dashboard.js, byte for byte: the build embeds them again
  // whenever one changes.
  REQUIRE(webFiles().size() == 3);
  for (const auto& file : webFiles()) {
    INFO(file.path);
    std::ifstream in(std::string(TROUPE_SOURCE_DIR) + "/dashboard/web/" + std::string(file.path),
                     std::ios::binary);
    std::stringstream source;
    source << in.rdbuf();
    CHECK(source.str() == file.content);
  }
}

TEST_CASE("the dashboard's paths answer with its files, safely", "[dashboard][static]") {
  struct Case {
    std::string path;
    int want_status;
    std::string want_type;
    std::string want_body_start;
  };
  std::vector<Case> cases = {
      {"/dashboard/", 200, "text/html; charset=utf-8", "<!doctype html>"},
      {"/dashboard/index.html", 200, "text/html; charset=utf-8", "<!doctype html>"},
      {"/dashboard/dashboard.js", 200, "text/javascript; charset=utf-8", "// Troupe's dashboard"},
      {"/dashboard/dashboard.css", 200, "text/css; charset=utf-8", ":root"},
      {"/dashboard/nope.js", 404, "text/plain; charset=utf-8", "404 page not found"},
      {"/dashboard/../etc/passwd", 404, "text/plain; charset=utf-8", "404 page not found"},
      {"/dashboards", 404, "text/plain; charset=utf-8", "404 page not found"},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.path) {
      auto answer = staticFile(tc.path);
      CHECK(answer.status == tc.want_status);
      CHECK(answer.content_type == tc.want_type);
      CHECK(answer.body.substr(0, tc.want_body_start.size()) == tc.want_body_start);
      // Only the page's own scripts, styles and API calls; never framed, never sniffed.
      CHECK_THAT(header(answer, "Content-Security-Policy"),
                 Catch::Contains("script-src 'self'") && Catch::Contains("frame-ancestors 'none'"));
      CHECK(header(answer, "X-Content-Type-Options") == "nosniff");
    }
  }
  auto redirect = staticFile("/dashboard");
  CHECK(redirect.status == 301);
  CHECK(header(redirect, "Location") == "/dashboard/");
}
