#include "kube/http_transport.h"

#include <fmt/format.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <limits>
#include <optional>

namespace troupe::kube {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;
using boost::system::error_code;

namespace {

using Clock = std::chrono::steady_clock;

// One TCP (and maybe TLS) connection with its own io_context, used by one thread at a time.
struct Connection {
  asio::io_context ioc;
  std::optional<beast::tcp_stream> plain;
  std::optional<ssl::stream<beast::tcp_stream>> secure;
  beast::flat_buffer buffer;

  beast::tcp_stream& lowest() { return secure ? secure->next_layer() : *plain; }

  // Runs the operations started on `ioc` to completion.
  void run() {
    ioc.restart();
    ioc.run();
  }
};

std::string describeSslError(const error_code& ec) {
  std::string message = ec.message();
  if (ec.category() == asio::error::get_ssl_category()) {
    char buf[256];
    ERR_error_string_n(static_cast<unsigned long>(ec.value()), buf, sizeof buf);
    message = buf;
  }
  return message;
}

bool isIpAddress(const std::string& host) {
  error_code ec;
  asio::ip::make_address(host, ec);
  return !ec;
}

}  // namespace

struct HttpTransport::State {
  TransportConfig config;
  bool use_tls = false;
  std::string host;  // without brackets
  std::string port;
  std::string host_header;
  std::optional<ssl::context> ssl_ctx;

  std::mutex mu;
  std::vector<std::unique_ptr<Connection>> idle;  // guarded by mu; most recently used last

  std::unique_ptr<Connection> take(bool* reused) {
    std::lock_guard lock(mu);
    if (idle.empty()) {
      *reused = false;
      return nullptr;
    }
    auto c = std::move(idle.back());
    idle.pop_back();
    *reused = true;
    return c;
  }

  void giveBack(std::unique_ptr<Connection> c) {
    std::lock_guard lock(mu);
    if (static_cast<int>(idle.size()) < config.max_idle_connections) idle.push_back(std::move(c));
  }

  // Opens a new connection, within `deadline`.
  ApiResult<std::unique_ptr<Connection>> connect(Clock::time_point deadline) {
    auto c = std::make_unique<Connection>();
    tcp::resolver resolver(c->ioc);
    error_code ec;
    tcp::resolver::results_type endpoints;
    resolver.async_resolve(host, port, [&](error_code e, tcp::resolver::results_type r) {
      ec = e;
      endpoints = std::move(r);
    });
    c->run();
    if (ec) {
      return transportError(ErrorCode::Unavailable, transport_reason::kConnectFailed,
                            fmt::format("cannot resolve {}: {}", host, ec.message()));
    }
    if (use_tls) {
      c->secure.emplace(beast::tcp_stream(c->ioc), *ssl_ctx);
    } else {
      c->plain.emplace(c->ioc);
    }
    c->lowest().expires_at(deadline);
    c->lowest().async_connect(endpoints, [&](error_code e, const tcp::endpoint&) { ec = e; });
    c->run();
    if (ec) {
      const bool timed_out = ec == beast::error::timeout;
      return transportError(
          timed_out ? ErrorCode::Timeout : ErrorCode::Unavailable,
          timed_out ? transport_reason::kTimeout : transport_reason::kConnectFailed,
          fmt::format("cannot connect to {}: {}", host_header, ec.message()));
    }
    c->lowest().socket().set_option(tcp::no_delay(true), ec);
    if (use_tls) {
      const std::string& name = config.tls_server_name.empty() ? host : config.tls_server_name;
      SSL* handle = c->secure->native_handle();
      if (!isIpAddress(name)) SSL_set_tlsext_host_name(handle, name.c_str());
      if (!config.insecure_skip_tls_verify) {
        // Check the certificate's subjectAltName against the name we meant to reach.
        X509_VERIFY_PARAM* param = SSL_get0_param(handle);
        X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
        if (isIpAddress(name)) {
          X509_VERIFY_PARAM_set1_ip_asc(param, name.c_str());
        } else {
          X509_VERIFY_PARAM_set1_host(param, name.c_str(), name.size());
        }
      }
      c->secure->async_handshake(ssl::stream_base::client, [&](error_code e) { ec = e; });
      c->run();
      if (ec) {
        std::string detail = describeSslError(ec);
        const long verify = SSL_get_verify_result(handle);
        if (verify != X509_V_OK) {
          detail =
              fmt::format("certificate verify failed: {}", X509_verify_cert_error_string(verify));
        }
        return transportError(
            ec == beast::error::timeout ? ErrorCode::Timeout : ErrorCode::Unavailable,
            transport_reason::kTlsFailed,
            fmt::format("TLS handshake with {} failed: {}", host_header, detail));
      }
    }
    return c;
  }

  http::request<http::string_body> buildRequest(const HttpRequest& request, bool keep_alive) const {
    http::request<http::string_body> req;
    req.method_string(request.method);
    req.target(request.target);
    req.version(11);
    req.set(http::field::host, host_header);
    for (const auto& [key, value] : request.headers) req.set(key, value);
    req.body() = request.body;
    req.keep_alive(keep_alive);
    req.prepare_payload();
    return req;
  }

  template <class Stream>
  error_code write(Connection& c, Stream& stream, http::request<http::string_body>& req) {
    error_code ec;
    http::async_write(stream, req, [&](error_code e, std::size_t) { ec = e; });
    c.run();
    return ec;
  }

  static ApiError readFailure(const error_code& ec, bool got_some, const std::string& what) {
    if (ec == beast::error::timeout) {
      return transportError(ErrorCode::Timeout, transport_reason::kTimeout,
                            fmt::format("{}: deadline passed", what));
    }
    if (ec == asio::error::operation_aborted) {
      return transportError(ErrorCode::Unavailable, transport_reason::kCancelled,
                            fmt::format("{}: cancelled", what));
    }
    return transportError(
        ErrorCode::Unavailable,
        got_some ? transport_reason::kDroppedMidResponse : transport_reason::kClosedBeforeResponse,
        fmt::format("{}: {}", what, ec.message()));
  }

  template <class Fields>
  static void copyHeaders(const Fields& fields, HttpResponse& out) {
    for (const auto& field : fields) {
      out.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
    }
  }
};

Result<std::unique_ptr<HttpTransport>> HttpTransport::create(const TransportConfig& config) {
  auto state = std::make_unique<State>();
  state->config = config;
  std::string rest;
  if (config.server.rfind("https://", 0) == 0) {
    state->use_tls = true;
    rest = config.server.substr(8);
  } else if (config.server.rfind("http://", 0) == 0) {
    rest = config.server.substr(7);
  } else {
    return makeError(ErrorCode::Invalid, "server",
                     fmt::format("\"{}\" must start with https:// or http://", config.server));
  }
  if (auto slash = rest.find('/'); slash != std::string::npos) {
    if (rest.substr(slash) != "/") {
      return makeError(
          ErrorCode::Invalid, "server",
          fmt::format("\"{}\": a path after the host is not supported", config.server));
    }
    rest.resize(slash);
  }
  std::string host = rest;
  std::string port = state->use_tls ? "443" : "80";
  if (!rest.empty() && rest.front() == '[') {
    const auto close = rest.find(']');
    if (close == std::string::npos) {
      return makeError(ErrorCode::Invalid, "server",
                       fmt::format("\"{}\": unclosed '['", config.server));
    }
    host = rest.substr(1, close - 1);
    if (close + 1 < rest.size() && rest[close + 1] == ':') port = rest.substr(close + 2);
  } else if (auto colon = rest.rfind(':'); colon != std::string::npos) {
    host = rest.substr(0, colon);
    port = rest.substr(colon + 1);
  }
  if (host.empty() || port.empty()) {
    return makeError(ErrorCode::Invalid, "server",
                     fmt::format("\"{}\" has no host or port", config.server));
  }
  state->host = host;
  state->port = port;
  state->host_header = (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + port;

  if (state->use_tls) {
    state->ssl_ctx.emplace(ssl::context::tls_client);
    auto& ctx = *state->ssl_ctx;
    ctx.set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                    ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
    error_code ec;
    if (config.insecure_skip_tls_verify) {
      ctx.set_verify_mode(ssl::verify_none);
    } else {
      ctx.set_verify_mode(ssl::verify_peer);
      if (!config.certificate_authority_pem.empty()) {
        ctx.add_certificate_authority(asio::buffer(config.certificate_authority_pem), ec);
        if (ec) {
          return makeError(ErrorCode::Invalid, "certificate-authority-data",
                           fmt::format("not a PEM certificate: {}", describeSslError(ec)));
        }
      } else {
        ctx.set_default_verify_paths(ec);
      }
    }
    if (!config.client_certificate_pem.empty()) {
      ctx.use_certificate_chain(asio::buffer(config.client_certificate_pem), ec);
      if (ec) {
        return makeError(ErrorCode::Invalid, "client-certificate-data",
                         fmt::format("not a PEM certificate: {}", describeSslError(ec)));
      }
      ctx.use_private_key(asio::buffer(config.client_key_pem), ssl::context::pem, ec);
      if (ec) {
        return makeError(ErrorCode::Invalid, "client-key-data",
                         fmt::format("not a PEM private key matching the client certificate: {}",
                                     describeSslError(ec)));
      }
    }
  }
  return std::unique_ptr<HttpTransport>(new HttpTransport(std::move(state)));
}

HttpTransport::HttpTransport(std::unique_ptr<State> state) : state_(std::move(state)) {}
HttpTransport::~HttpTransport() = default;

const std::string& HttpTransport::hostHeader() const { return state_->host_header; }
bool HttpTransport::tls() const { return state_->use_tls; }

ApiResult<HttpResponse> HttpTransport::send(const HttpRequest& request,
                                            std::chrono::milliseconds timeout, bool* reused_out) {
  const auto deadline = Clock::now() + timeout;
  bool reused = false;
  std::unique_ptr<Connection> c = state_->take(&reused);
  if (reused_out) *reused_out = reused;
  if (!c) {
    auto opened = state_->connect(deadline);
    if (!opened) return opened.error();
    c = std::move(*opened);
  }
  auto exchange = [&](auto& stream) -> ApiResult<HttpResponse> {
    auto req = state_->buildRequest(request, true);
    c->lowest().expires_at(deadline);
    if (error_code ec = state_->write(*c, stream, req)) {
      // A write on a connection the server already closed: nothing reached it.
      return State::readFailure(ec, false, fmt::format("{} {}", request.method, request.target));
    }
    http::response_parser<http::string_body> parser;
    parser.header_limit(64 * 1024);
    parser.body_limit(state_->config.max_body_bytes);
    error_code ec;
    http::async_read(stream, c->buffer, parser, [&](error_code e, std::size_t) { ec = e; });
    c->run();
    if (ec) {
      if (ec == http::error::body_limit) {
        return transportError(ErrorCode::TooLarge, transport_reason::kProtocol,
                              fmt::format("{} {}: answer larger than {} bytes", request.method,
                                          request.target, state_->config.max_body_bytes));
      }
      return State::readFailure(ec, parser.got_some(),
                                fmt::format("{} {}", request.method, request.target));
    }
    auto& res = parser.get();
    HttpResponse out;
    out.status = static_cast<int>(res.result_int());
    State::copyHeaders(res.base(), out);
    out.body = std::move(res.body());
    if (res.keep_alive()) {
      c->buffer.consume(c->buffer.size());
      state_->giveBack(std::move(c));
    }
    return out;
  };
  return c->secure ? exchange(*c->secure) : exchange(*c->plain);
}

ApiResult<HttpResponse> HttpTransport::stream(
    const HttpRequest& request, std::chrono::milliseconds timeout, std::stop_token stop,
    const std::function<void(std::string_view)>& on_body) {
  const auto deadline = Clock::now() + timeout;
  const std::string what = fmt::format("{} {}", request.method, request.target);
  if (stop.stop_requested()) {
    return transportError(ErrorCode::Unavailable, transport_reason::kCancelled,
                          what + ": cancelled");
  }
  auto opened = state_->connect(deadline);
  if (!opened) return opened.error();
  std::unique_ptr<Connection> c = std::move(*opened);
  Connection* conn = c.get();
  // A stop request closes the socket from the io_context's own thread, which ends the read.
  std::stop_callback on_stop(stop, [conn] {
    asio::post(conn->ioc, [conn] {
      error_code ignored;
      conn->lowest().socket().shutdown(tcp::socket::shutdown_both, ignored);
      conn->lowest().cancel();
    });
  });
  auto exchange = [&](auto& stream) -> ApiResult<HttpResponse> {
    auto req = state_->buildRequest(request, false);
    c->lowest().expires_at(deadline);
    if (error_code ec = state_->write(*c, stream, req)) {
      if (stop.stop_requested()) {
        return transportError(ErrorCode::Unavailable, transport_reason::kCancelled,
                              what + ": cancelled");
      }
      return State::readFailure(ec, false, what);
    }
    http::response_parser<http::buffer_body> parser;
    parser.header_limit(64 * 1024);
    // No limit on a stream. Not boost::none: Boost 1.74 compares a Content-Length against an
    // empty optional as "over the limit".
    parser.body_limit(std::numeric_limits<std::uint64_t>::max());
    error_code ec;
    http::async_read_header(stream, c->buffer, parser, [&](error_code e, std::size_t) { ec = e; });
    c->run();
    if (!ec && stop.stop_requested()) ec = asio::error::operation_aborted;
    if (ec) return State::readFailure(ec, parser.got_some(), what);
    HttpResponse out;
    out.status = static_cast<int>(parser.get().result_int());
    State::copyHeaders(parser.get().base(), out);
    // An error answer is read whole (a Status body, small) and returned, not streamed.
    const bool streaming = out.status >= 200 && out.status < 300;
    char chunk[16 * 1024];
    while (!parser.is_done()) {
      parser.get().body().data = chunk;
      parser.get().body().size = sizeof chunk;
      // read_some: hand over each piece as it arrives. async_read would wait until the
      // buffer is full or the stream ends, holding watch events back for minutes.
      http::async_read_some(stream, c->buffer, parser, [&](error_code e, std::size_t) { ec = e; });
      c->run();
      if (ec == http::error::need_buffer) ec = {};
      const std::size_t n = sizeof chunk - parser.get().body().size;
      if (n > 0 && !stop.stop_requested()) {
        if (streaming) {
          on_body(std::string_view(chunk, n));
        } else if (out.body.size() < (1u << 20)) {
          out.body.append(chunk, n);
        }
      }
      if (stop.stop_requested()) {
        return transportError(ErrorCode::Unavailable, transport_reason::kCancelled,
                              what + ": cancelled");
      }
      if (ec) return State::readFailure(ec, true, what);
    }
    return out;
  };
  return c->secure ? exchange(*c->secure) : exchange(*c->plain);
}

}  // namespace troupe::kube
