#include "dashboard/dashboard_server.h"

#include <fmt/format.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <atomic>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <list>
#include <mutex>
#include <thread>

#include "common/listen_address.h"
#include "common/log.h"
#include "common/thread_name.h"
#include "dashboard/static_files.h"

namespace troupe::dashboard {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

// Every read has a deadline; a keep-alive connection idle this long is closed.
constexpr int kReadTimeoutSeconds = 60;
// A browser that stops reading a stream for this long is dropped.
constexpr int kWriteTimeoutSeconds = 30;
constexpr std::uint32_t kHeaderLimit = 16 * 1024;

void setTimeout(tcp::socket& socket, int option, int seconds) {
  timeval tv{seconds, 0};
  setsockopt(socket.native_handle(), SOL_SOCKET, option, &tv, sizeof(tv));
}

class BeastDashboardServer final : public DashboardServer {
 public:
  BeastDashboardServer(tcp::endpoint endpoint, std::unique_ptr<ApiProxy> proxy)
      : acceptor_(io_), proxy_(std::move(proxy)) {
    acceptor_.open(endpoint.protocol());
    acceptor_.set_option(asio::socket_base::reuse_address(true));
    acceptor_.bind(endpoint);
    acceptor_.listen();
    port_ = acceptor_.local_endpoint().port();
    thread_ = std::thread([this] {
      nameThisThread("dashboard");
      acceptLoop();
    });
  }
  ~BeastDashboardServer() override { stop(); }

  int port() const override { return port_; }

  void stop() override {
    if (stopped_.exchange(true)) return;
    beast::error_code ec;
    // Wake the blocking accept with a connection of our own.
    tcp::socket poke(io_);
    poke.connect(
        tcp::endpoint(asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port_)), ec);
    if (thread_.joinable()) thread_.join();
    std::list<Connection> connections;
    {
      std::lock_guard lock(mu_);
      for (auto& c : connections_) {
        c.stop.request_stop();
        c.socket.shutdown(tcp::socket::shutdown_both, ec);
      }
      connections.splice(connections.end(), connections_);
    }
    for (auto& c : connections)
      if (c.thread.joinable()) c.thread.join();
  }

 private:
  struct Connection {
    explicit Connection(tcp::socket s) : socket(std::move(s)) {}
    tcp::socket socket;
    std::stop_source stop;
    std::atomic<bool> done{false};
    std::thread thread;
  };

  void acceptLoop() {
    while (!stopped_) {
      tcp::socket socket(io_);
      beast::error_code ec;
      acceptor_.accept(socket, ec);
      if (ec || stopped_) continue;
      std::lock_guard lock(mu_);
      reapFinished();
      if (connections_.size() >= static_cast<std::size_t>(kMaxConnections)) {
        log::warn("dashboard: connection refused, too many open", {{"limit", kMaxConnections}});
        socket.close(ec);
        continue;
      }
      auto& c = connections_.emplace_back(std::move(socket));
      c.thread = std::thread([this, &c] {
        nameThisThread("dashboard-conn");
        serve(c);
        c.done = true;
      });
    }
    beast::error_code ec;
    acceptor_.close(ec);
  }

  // Joins the threads of closed connections; mu_ held.
  void reapFinished() {
    for (auto it = connections_.begin(); it != connections_.end();) {
      if (!it->done) {
        ++it;
        continue;
      }
      if (it->thread.joinable()) it->thread.join();
      it = connections_.erase(it);
    }
  }

  void serve(Connection& c) {
    setTimeout(c.socket, SO_RCVTIMEO, kReadTimeoutSeconds);
    setTimeout(c.socket, SO_SNDTIMEO, kWriteTimeoutSeconds);
    beast::flat_buffer buffer(8192);
    while (!stopped_) {
      beast::error_code ec;
      http::request_parser<http::string_body> parser;
      parser.header_limit(kHeaderLimit);
      parser.body_limit(0);  // GET only: a request with a body is not one the dashboard sends
      http::read(c.socket, buffer, parser, ec);
      if (ec) break;
      if (!answer(c, parser.get())) break;
    }
    beast::error_code ec;
    c.socket.shutdown(tcp::socket::shutdown_both, ec);
  }

  // Writes the answer to one request; false when the connection must close.
  bool answer(Connection& c, const http::request<http::string_body>& req) {
    const std::string target(req.target());
    const std::string path = target.substr(0, target.find('?'));
    const std::string method(req.method_string());
    beast::error_code ec;
    if (path == kPathPrefix || path.rfind(std::string(kPathPrefix) + "/", 0) == 0) {
      http::response<http::string_body> res;
      res.version(req.version());
      res.keep_alive(req.keep_alive());
      if (req.method() != http::verb::get && req.method() != http::verb::head) {
        res.result(http::status::method_not_allowed);
        res.set(http::field::content_type, "text/plain; charset=utf-8");
        res.body() = "only GET\n";
      } else {
        auto file = staticFile(path);
        res.result(static_cast<unsigned>(file.status));
        res.set(http::field::content_type, file.content_type);
        for (const auto& [name, value] : file.headers) res.set(name, value);
        if (req.method() == http::verb::get) res.body() = std::string(file.body);
      }
      res.prepare_payload();
      http::write(c.socket, res, ec);
      return !ec && res.keep_alive();
    }
    if (!ApiProxy::handles(path)) {
      http::response<http::string_body> res{http::status::not_found, req.version()};
      res.set(http::field::content_type, "text/plain; charset=utf-8");
      res.keep_alive(req.keep_alive());
      res.body() = "404 page not found\n";
      res.prepare_payload();
      http::write(c.socket, res, ec);
      return !ec && res.keep_alive();
    }
    // A watch streams in chunks; anything else is answered whole.
    bool streaming = false;
    bool browser_gone = false;
    auto start = [&](const std::string& content_type) {
      http::response<http::empty_body> head{http::status::ok, req.version()};
      head.set(http::field::content_type, content_type);
      head.set(http::field::cache_control, "no-store");
      head.chunked(true);
      http::response_serializer<http::empty_body> sr{head};
      http::write_header(c.socket, sr, ec);
      streaming = true;
      browser_gone = static_cast<bool>(ec);
    };
    auto on_body = [&](std::string_view piece) {
      if (browser_gone) return false;
      asio::write(c.socket, http::make_chunk(asio::buffer(piece.data(), piece.size())), ec);
      browser_gone = static_cast<bool>(ec);
      return !browser_gone;
    };
    std::string authorization(req[http::field::authorization]);
    auto answer = proxy_->answer(method, target, authorization, c.stop.get_token(), start, on_body);
    if (streaming) {
      if (!browser_gone) asio::write(c.socket, http::make_chunk_last(), ec);
      return false;  // one stream per connection, as the API server does
    }
    http::response<http::string_body> res;
    res.version(req.version());
    res.keep_alive(req.keep_alive());
    res.result(static_cast<unsigned>(answer.status));
    res.set(http::field::content_type, answer.content_type);
    res.set(http::field::cache_control, "no-store");
    res.body() = std::move(answer.body);
    res.prepare_payload();
    http::write(c.socket, res, ec);
    return !ec && res.keep_alive();
  }

  asio::io_context io_;
  tcp::acceptor acceptor_;
  std::unique_ptr<ApiProxy> proxy_;
  int port_ = 0;
  std::atomic<bool> stopped_{false};
  std::thread thread_;
  std::mutex mu_;
  std::list<Connection> connections_;  // guarded by mu_
};

}  // namespace

Result<std::unique_ptr<DashboardServer>> DashboardServer::start(const std::string& address,
                                                                std::unique_ptr<ApiProxy> proxy) {
  auto parsed = parseListenAddress(address, "--dashboard-addr");
  if (!parsed) return parsed.error();
  try {
    return std::unique_ptr<DashboardServer>(new BeastDashboardServer(
        tcp::endpoint(asio::ip::make_address(parsed->host), parsed->port), std::move(proxy)));
  } catch (const boost::system::system_error& e) {
    return makeError(ErrorCode::Unavailable, "--dashboard-addr",
                     fmt::format("cannot listen on {}: {}", address, e.what()));
  }
}

}  // namespace troupe::dashboard
