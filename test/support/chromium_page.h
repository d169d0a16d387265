#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <memory>
#include <string>

#include "common/result.h"
#include "test/support/child_process.h"
#include "test/support/temp_dir.h"

// Debian's headless Chromium (/usr/bin/chromium), started for one test with a fresh
// profile, and one page of it driven over the Chrome DevTools Protocol (a WebSocket): load
// a URL, evaluate JavaScript in the page, wait for what it shows, take screenshots.
namespace troupe::testing {

class ChromiumPage {
 public:
  // Starts the browser (as root: --no-sandbox) and attaches to its blank page. `log_file`
  // receives the browser's own output.
  static Result<std::unique_ptr<ChromiumPage>> start(const std::string& log_file, int width = 1400,
                                                     int height = 1600);
  ~ChromiumPage();
  ChromiumPage(const ChromiumPage&) = delete;
  ChromiumPage& operator=(const ChromiumPage&) = delete;

  Status navigate(const std::string& url);
  // The expression's value (promises awaited), or an error with the page's exception.
  Result<nlohmann::json> evaluate(const std::string& expression);
  // Evaluates `expression` every 100 ms until it is true; false after `timeout`.
  bool waitFor(const std::string& expression,
               std::chrono::milliseconds timeout = std::chrono::seconds(20));
  // The whole page, beyond the viewport, as a PNG file.
  Status screenshot(const std::string& png_file);

  struct Connection;

 private:
  ChromiumPage() = default;
  Result<nlohmann::json> call(const std::string& method, const nlohmann::json& params);

  TempDir profile_;  // declared first: removed after the browser is gone
  std::unique_ptr<ChildProcess> browser_;
  std::unique_ptr<Connection> connection_;
  int next_id_ = 1;
};

}  // namespace troupe::testing
