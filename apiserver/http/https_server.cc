#include "apiserver/http/https_server.h"

#include <thread>
#include <vector>

#include "apiserver/http/beast_session.h"
#include "apiserver/http/tls_certificate.h"
#include "common/log.h"
#include "common/thread_name.h"

namespace troupe::apiserver::http {

// The listener role: accept connections and hand each to a new Session.
class Listener : public std::enable_shared_from_this<Listener> {
 public:
  Listener(net::io_context& io, ssl::context& tls, std::shared_ptr<ServerShared> shared)
      : io_(io), tls_(tls), acceptor_(net::make_strand(io)), shared_(std::move(shared)) {}

  Result<std::uint16_t> open(const std::string& address, std::uint16_t port) {
    beast::error_code ec;
    auto ip = net::ip::make_address(address, ec);
    if (ec) return makeError(ErrorCode::Invalid, "listen", "not an IP address: " + address);
    tcp::endpoint endpoint{ip, port};
    acceptor_.open(endpoint.protocol(), ec);
    if (!ec) acceptor_.set_option(net::socket_base::reuse_address(true), ec);
    if (!ec) acceptor_.bind(endpoint, ec);
    if (!ec) acceptor_.listen(net::socket_base::max_listen_connections, ec);
    if (ec) {
      return makeError(
          ErrorCode::Unavailable, "listen",
          "cannot listen on " + address + ":" + std::to_string(port) + ": " + ec.message());
    }
    return acceptor_.local_endpoint().port();
  }

  void accept() {
    acceptor_.async_accept(net::make_strand(io_), [self = shared_from_this()](beast::error_code ec,
                                                                              tcp::socket socket) {
      if (ec) {
        if (!self->acceptor_.is_open() || self->shared_->stopping) return;
      } else {
        // Responses and watch events are small writes the client does not answer: with
        // Nagle's algorithm on, each would wait for the ACK of the one before (which the
        // client may delay by 40 ms). Every write here is already one whole message.
        beast::error_code nodelay_ec;
        socket.set_option(tcp::no_delay(true), nodelay_ec);
        std::make_shared<Session>(std::move(socket), self->tls_, self->shared_)->run();
      }
      self->accept();
    });
  }

  void close() {
    net::post(acceptor_.get_executor(), [self = shared_from_this()] {
      beast::error_code ec;
      self->acceptor_.close(ec);
    });
  }

 private:
  net::io_context& io_;
  ssl::context& tls_;
  tcp::acceptor acceptor_;
  std::shared_ptr<ServerShared> shared_;
};

struct HttpsServer::State {
  // What each handshake presents; outlives the context that calls on it.
  std::unique_ptr<TlsCertificate> certificate;
  // tls outlives io: sessions still queued in io hold streams made from it.
  ssl::context tls{ssl::context::tls_server};
  net::io_context io;
  std::shared_ptr<ServerShared> shared;
  std::shared_ptr<Listener> listener;
  std::vector<std::thread> threads;
  std::optional<net::executor_work_guard<net::io_context::executor_type>> work;
  bool stopped = false;
};

HttpsServer::HttpsServer(ServerOptions options, Handler handler)
    : state_(std::make_unique<State>()) {
  state_->shared = std::make_shared<ServerShared>(std::move(options), std::move(handler));
}

HttpsServer::~HttpsServer() { stop(); }

Result<std::uint16_t> HttpsServer::start() {
  const auto& options = state_->shared->options;
  state_->tls.set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                          ssl::context::no_sslv3 | ssl::context::no_tlsv1 |
                          ssl::context::no_tlsv1_1);
  state_->certificate = std::make_unique<TlsCertificate>(options.cert_file, options.key_file);
  if (auto loaded = state_->certificate->load(); !loaded) return loaded.error();
  state_->certificate->install(state_->tls.native_handle());

  state_->listener = std::make_shared<Listener>(state_->io, state_->tls, state_->shared);
  auto port = state_->listener->open(options.address, options.port);
  if (!port) return port.error();
  state_->listener->accept();
  state_->work.emplace(state_->io.get_executor());
  for (std::size_t i = 0; i < std::max<std::size_t>(1, options.io_threads); ++i) {
    state_->threads.emplace_back([this] {
      nameThisThread("api-http");
      state_->io.run();
    });
  }
  return port;
}

Status HttpsServer::reloadCertificate() {
  if (!state_->certificate)
    return makeError(ErrorCode::Internal, "tls", "the server is not started");
  return state_->certificate->load();
}

void HttpsServer::stop() {
  if (!state_ || state_->stopped) return;
  state_->stopped = true;
  auto& shared = *state_->shared;
  shared.stopping = true;
  if (state_->listener) state_->listener->close();
  std::set<std::shared_ptr<ResponseStream>> streams;
  {
    std::lock_guard lock(shared.streams_mu);
    streams.swap(shared.streams);
  }
  for (auto& stream : streams) stream->stop();
  shared.workers.join();
  state_->work.reset();
  state_->io.stop();
  for (auto& thread : state_->threads) thread.join();
  state_->threads.clear();
}

}  // namespace troupe::apiserver::http
