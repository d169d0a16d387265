#include "test/support/chromium_page.h"

#include <unistd.h>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/core/detail/base64.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

namespace troupe::testing {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;
using json = nlohmann::json;

struct ChromiumPage::Connection {
  asio::io_context io;
  websocket::stream<tcp::socket> ws{io};
};

namespace {

// The flags Chromium needs to run headless as root in a container, quietly and
// reproducibly: no sandbox (root), no GPU, no network of its own (no QUIC, no background
// fetches, updates or sync), no first-run UI.
const char* const kFlags[] = {"--headless",
                              "--no-sandbox",
                              "--disable-gpu",
                              "--disable-quic",
                              "--no-first-run",
                              "--disable-background-networking",
                              "--disable-component-update",
                              "--disable-sync",
                              "--disable-dev-shm-usage",
                              "--ignore-certificate-errors",  // troupe serve's own CA
                              "--remote-debugging-port=0",
                              "--remote-debugging-address=127.0.0.1"};

Result<std::string> httpGet(int port, const std::string& target) {
  try {
    asio::io_context io;
    tcp::socket socket(io);
    socket.connect(
        tcp::endpoint(asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port)));
    http::request<http::empty_body> req{http::verb::get, target, 11};
    req.set(http::field::host, "127.0.0.1:" + std::to_string(port));
    http::write(socket, req);
    beast::flat_buffer buffer;
    http::response<http::string_body> res;
    http::read(socket, buffer, res);
    return res.body();
  } catch (const std::exception& e) {
    return makeError(ErrorCode::Unavailable, target, e.what());
  }
}

}  // namespace

Result<std::unique_ptr<ChromiumPage>> ChromiumPage::start(const std::string& log_file, int width,
                                                          int height) {
  const char* binary = "/usr/bin/chromium";
  if (access(binary, X_OK) != 0)
    return makeError(ErrorCode::NotFound, binary,
                     "Chromium is not installed (Debian package chromium; scripts/bootstrap "
                     "installs it)");
  std::unique_ptr<ChromiumPage> page(new ChromiumPage());
  std::vector<std::string> args = {binary};
  for (const char* flag : kFlags) args.emplace_back(flag);
  args.push_back("--user-data-dir=" + page->profile_.path());
  args.push_back("--window-size=" + std::to_string(width) + "," + std::to_string(height));
  args.push_back("about:blank");
  // Its own process group: the browser's helper processes go with it.
  page->browser_ = std::make_unique<ChildProcess>(std::move(args), log_file,
                                                  ChildOptions{"", /*own_process_group=*/true});
  // Chromium writes the port it picked, and its browser endpoint, to DevToolsActivePort.
  const std::string port_file = page->profile_.path() + "/DevToolsActivePort";
  int port = 0;
  for (int i = 0; i < 600 && port == 0; ++i) {
    std::ifstream in(port_file);
    if (!(in >> port)) port = 0;
    if (port == 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (port == 0)
    return makeError(ErrorCode::Unavailable, "chromium", "no DevToolsActivePort after 30 s");
  std::string ws_url;
  for (int i = 0; i < 100 && ws_url.empty(); ++i) {
    auto list = httpGet(port, "/json/list");
    if (list) {
      json targets = json::parse(*list, nullptr, false);
      if (targets.is_array())
        for (const auto& t : targets)
          if (t.value("type", "") == "page") ws_url = t.value("webSocketDebuggerUrl", "");
    }
    if (ws_url.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (ws_url.empty()) return makeError(ErrorCode::Unavailable, "chromium", "no page to attach to");
  // ws://127.0.0.1:PORT/devtools/page/ID
  const std::string path = ws_url.substr(ws_url.find('/', std::string("ws://").size()));
  page->connection_ = std::make_unique<Connection>();
  try {
    auto& ws = page->connection_->ws;
    beast::get_lowest_layer(ws).connect(
        tcp::endpoint(asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port)));
    ws.read_message_max(64u << 20);  // screenshots arrive as one message
    ws.handshake("127.0.0.1:" + std::to_string(port), path);
  } catch (const std::exception& e) {
    return makeError(ErrorCode::Unavailable, "chromium", std::string("DevTools: ") + e.what());
  }
  auto sized = page->call(
      "Emulation.setDeviceMetricsOverride",
      {{"width", width}, {"height", height}, {"deviceScaleFactor", 1}, {"mobile", false}});
  if (!sized) return sized.error();
  return page;
}

ChromiumPage::~ChromiumPage() {
  if (connection_) {
    beast::error_code ec;
    connection_->ws.next_layer().close(ec);
  }
  if (browser_) browser_->stop();
}

Result<json> ChromiumPage::call(const std::string& method, const json& params) {
  const int id = next_id_++;
  try {
    auto& ws = connection_->ws;
    ws.write(asio::buffer(json{{"id", id}, {"method", method}, {"params", params}}.dump()));
    for (;;) {
      beast::flat_buffer buffer;
      ws.read(buffer);
      json message = json::parse(beast::buffers_to_string(buffer.data()), nullptr, false);
      if (!message.is_object() || message.value("id", 0) != id) continue;  // an event
      if (message.contains("error"))
        return makeError(ErrorCode::Internal, method, message["error"].dump());
      return message.value("result", json::object());
    }
  } catch (const std::exception& e) {
    return makeError(ErrorCode::Unavailable, method, e.what());
  }
}

Status ChromiumPage::navigate(const std::string& url) {
  auto done = call("Page.navigate", {{"url", url}});
  if (!done) return done.error();
  if (done->contains("errorText"))
    return makeError(ErrorCode::Unavailable, url, (*done)["errorText"].get<std::string>());
  return {};
}

Result<json> ChromiumPage::evaluate(const std::string& expression) {
  auto result = call("Runtime.evaluate",
                     {{"expression", expression}, {"returnByValue", true}, {"awaitPromise", true}});
  if (!result) return result.error();
  if (result->contains("exceptionDetails"))
    return makeError(ErrorCode::Invalid, expression, (*result)["exceptionDetails"].dump());
  return (*result)["result"].value("value", json());
}

bool ChromiumPage::waitFor(const std::string& expression, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  do {
    auto value = evaluate(expression);
    if (value && *value == true) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  } while (std::chrono::steady_clock::now() < deadline);
  return false;
}

Status ChromiumPage::screenshot(const std::string& png_file) {
  auto shot = call("Page.captureScreenshot", {{"format", "png"}, {"captureBeyondViewport", true}});
  if (!shot) return shot.error();
  const std::string encoded = shot->value("data", "");
  std::string png(beast::detail::base64::decoded_size(encoded.size()), '\0');
  auto [written, read] = beast::detail::base64::decode(png.data(), encoded.data(), encoded.size());
  (void)read;
  png.resize(written);
  std::filesystem::create_directories(std::filesystem::path(png_file).parent_path());
  std::ofstream(png_file, std::ios::binary) << png;
  return {};
}

}  // namespace troupe::testing
