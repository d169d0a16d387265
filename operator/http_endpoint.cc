#include "operator/http_endpoint.h"

#include <fmt/format.h>

#include <atomic>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <thread>

#include <sys/socket.h>
#include <sys/time.h>

#include "common/listen_address.h"
#include "common/log.h"
#include "common/thread_name.h"

namespace troupe::operator_runtime {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

class BeastHttpEndpoint final : public HttpEndpoint {
 public:
  BeastHttpEndpoint(tcp::endpoint endpoint, HttpHandler handler)
      : acceptor_(io_), handler_(std::move(handler)) {
    acceptor_.open(endpoint.protocol());
    acceptor_.set_option(asio::socket_base::reuse_address(true));
    acceptor_.bind(endpoint);
    acceptor_.listen();
    port_ = acceptor_.local_endpoint().port();
    thread_ = std::thread([this] {
      nameThisThread("op-metrics");
      run();
    });
  }
  ~BeastHttpEndpoint() override { stop(); }

  int port() const override { return port_; }

  void stop() override {
    if (stopped_.exchange(true)) return;
    beast::error_code ec;
    // Wake the blocking accept with a connection of our own, then close.
    tcp::socket poke(io_);
    poke.connect(
        tcp::endpoint(asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port_)), ec);
    if (thread_.joinable()) thread_.join();
  }

 private:
  void run() {
    while (!stopped_) {
      tcp::socket socket(io_);
      beast::error_code ec;
      acceptor_.accept(socket, ec);
      if (ec || stopped_) continue;
      serve(socket);
    }
    beast::error_code ec;
    acceptor_.close(ec);
  }

  void serve(tcp::socket& socket) {
    beast::error_code ec;
    beast::flat_buffer buffer(8192);
    http::request_parser<http::empty_body> parser;
    parser.header_limit(8192);
    struct timeval tv {
      5, 0
    };
    setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    http::read(socket, buffer, parser, ec);
    if (ec) return;
    const auto& req = parser.get();
    http::response<http::string_body> res;
    res.version(req.version());
    res.keep_alive(false);
    if (req.method() != http::verb::get && req.method() != http::verb::head) {
      res.result(http::status::method_not_allowed);
      res.set(http::field::content_type, "text/plain");
      res.body() = "only GET\n";
    } else {
      std::string target(req.target());
      auto q = target.find('?');
      auto answer = handler_(q == std::string::npos ? target : target.substr(0, q));
      res.result(static_cast<unsigned>(answer.status));
      res.set(http::field::content_type, answer.content_type);
      if (req.method() == http::verb::get) res.body() = std::move(answer.body);
    }
    res.prepare_payload();
    http::write(socket, res, ec);
    socket.shutdown(tcp::socket::shutdown_both, ec);
  }

  asio::io_context io_;
  tcp::acceptor acceptor_;
  HttpHandler handler_;
  int port_ = 0;
  std::atomic<bool> stopped_{false};
  std::thread thread_;
};

}  // namespace

Result<std::unique_ptr<HttpEndpoint>> HttpEndpoint::start(const std::string& address,
                                                          HttpHandler handler) {
  auto parsed = parseListenAddress(address, "address");
  if (!parsed) return parsed.error();
  try {
    return std::unique_ptr<HttpEndpoint>(new BeastHttpEndpoint(
        tcp::endpoint(asio::ip::make_address(parsed->host), parsed->port), std::move(handler)));
  } catch (const boost::system::system_error& e) {
    return makeError(ErrorCode::Unavailable, "address",
                     fmt::format("cannot listen on {}: {}", address, e.what()));
  }
}

}  // namespace troupe::operator_runtime
