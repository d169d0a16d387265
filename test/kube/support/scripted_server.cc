#include "test/kube/support/scripted_server.h"

#include <fmt/format.h>
#include <openssl/x509.h>
#include <sys/socket.h>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <fstream>
#include <optional>
#include <sstream>

#include "common/check.h"

#ifndef TROUPE_K8S_FIXTURES_DIR
#error "TROUPE_K8S_FIXTURES_DIR must name the recorded fixtures folder"
#endif

namespace troupe::kube::testing {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;
using boost::system::error_code;

namespace {

const char* reasonPhrase(int status) {
  switch (status) {
    case 200: return "OK";
    case 201: return "Created";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 406: return "Not Acceptable";
    case 409: return "Conflict";
    case 410: return "Gone";
    case 415: return "Unsupported Media Type";
    case 422: return "Unprocessable Entity";
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    default: return "Status";
  }
}

std::string decode(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else if (s[i] == '+') {
      out += ' ';
    } else {
      out += s[i];
    }
  }
  return out;
}

}  // namespace

std::string RecordedRequest::header(const std::string& lower_name) const {
  auto it = headers.find(lower_name);
  return it == headers.end() ? std::string{} : it->second;
}

std::string RecordedRequest::param(const std::string& name) const {
  auto it = query.find(name);
  return it == query.end() ? std::string{} : it->second;
}

std::string readFixture(const std::string& name) {
  const std::string path = std::string(TROUPE_K8S_FIXTURES_DIR) + "/" + name;
  std::ifstream in(path, std::ios::binary);
  TROUPE_CHECK(static_cast<bool>(in), "fixture {} is missing", path);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::vector<std::string> fixtureLines(const std::string& name) {
  const std::string text = readFixture(name);
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size() - 1;
    lines.push_back(text.substr(start, nl - start + 1));
    start = nl + 1;
  }
  return lines;
}

Reply Reply::fixture(int status, const std::string& name) {
  Reply r;
  r.status = status;
  r.body = readFixture(name);
  if (name.size() > 4 && name.substr(name.size() - 4) == ".txt") {
    r.content_type = "text/plain; charset=utf-8";
  }
  return r;
}

Reply Reply::watchLines(const std::vector<std::string>& lines) {
  Reply r;
  r.chunked = true;
  r.chunks = lines;
  return r;
}

Reply Reply::json(int status, const std::string& body) {
  Reply r;
  r.status = status;
  r.body = body;
  return r;
}

struct ScriptedServer::Connection {
  int id = 0;
  std::optional<tcp::socket> plain;
  std::optional<ssl::stream<tcp::socket>> secure;
  std::thread thread;

  tcp::socket& lowest() { return secure ? secure->next_layer() : *plain; }

  error_code write(const std::string& bytes) {
    error_code ec;
    if (secure) {
      asio::write(*secure, asio::buffer(bytes), ec);
    } else {
      asio::write(*plain, asio::buffer(bytes), ec);
    }
    return ec;
  }
};

struct ScriptedServer::Impl {
  asio::io_context ioc;
  tcp::acceptor acceptor{ioc};
  std::optional<ssl::context> ctx;
  std::mutex mu;
  std::vector<std::unique_ptr<Connection>> connections;  // guarded by mu
};

ScriptedServer::ScriptedServer(Options options)
    : options_(std::move(options)), impl_(std::make_unique<Impl>()) {
  if (options_.tls) {
    impl_->ctx.emplace(ssl::context::tls_server);
    impl_->ctx->use_certificate_chain(asio::buffer(options_.cert_pem));
    impl_->ctx->use_private_key(asio::buffer(options_.key_pem), ssl::context::pem);
    if (options_.request_client_certificate) {
      // Ask for a certificate and accept any: the test only records who presented one.
      impl_->ctx->set_verify_mode(ssl::verify_peer);
      impl_->ctx->set_verify_callback([](bool, ssl::verify_context&) { return true; });
    }
  }
  tcp::endpoint endpoint(asio::ip::make_address("127.0.0.1"), 0);
  impl_->acceptor.open(endpoint.protocol());
  impl_->acceptor.set_option(tcp::acceptor::reuse_address(true));
  impl_->acceptor.bind(endpoint);
  impl_->acceptor.listen();
  port_ = impl_->acceptor.local_endpoint().port();
  acceptor_thread_ = std::thread([this] { acceptLoop(); });
}

ScriptedServer::~ScriptedServer() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  ::shutdown(impl_->acceptor.native_handle(), SHUT_RDWR);
  acceptor_thread_.join();
  std::vector<std::unique_ptr<Connection>> connections;
  {
    std::lock_guard lock(impl_->mu);
    for (auto& c : impl_->connections) ::shutdown(c->lowest().native_handle(), SHUT_RDWR);
    connections = std::move(impl_->connections);
  }
  for (auto& c : connections) c->thread.join();
}

std::string ScriptedServer::url() const {
  return fmt::format("{}://127.0.0.1:{}", options_.tls ? "https" : "http", port_);
}

void ScriptedServer::enqueue(Reply reply) {
  std::lock_guard lock(mu_);
  replies_.push_back(std::move(reply));
}

void ScriptedServer::setHandler(std::function<Reply(const RecordedRequest&)> handler) {
  std::lock_guard lock(mu_);
  handler_ = std::move(handler);
}

void ScriptedServer::releaseStreams() {
  {
    std::lock_guard lock(mu_);
    ++release_generation_;
  }
  cv_.notify_all();
}

std::vector<RecordedRequest> ScriptedServer::requests() const {
  std::lock_guard lock(mu_);
  return requests_;
}

bool ScriptedServer::waitForRequests(std::size_t n, std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mu_);
  return cv_.wait_for(lock, timeout, [&] { return requests_.size() >= n; });
}

int ScriptedServer::connectionsAccepted() const {
  std::lock_guard lock(mu_);
  return connections_;
}

void ScriptedServer::acceptLoop() {
  for (;;) {
    tcp::socket socket(impl_->ioc);
    error_code ec;
    impl_->acceptor.accept(socket, ec);
    std::lock_guard lock(mu_);
    if (stopping_) return;
    if (ec) continue;
    auto c = std::make_unique<Connection>();
    c->id = ++connections_;
    if (options_.tls) {
      c->secure.emplace(std::move(socket), *impl_->ctx);
    } else {
      c->plain.emplace(std::move(socket));
    }
    Connection* raw = c.get();
    std::lock_guard conn_lock(impl_->mu);
    impl_->connections.push_back(std::move(c));
    raw->thread = std::thread([this, raw] { serve(*raw); });
  }
}

Reply ScriptedServer::nextReply(const RecordedRequest& request) {
  std::function<Reply(const RecordedRequest&)> handler;
  {
    std::lock_guard lock(mu_);
    if (!replies_.empty()) {
      Reply r = std::move(replies_.front());
      replies_.pop_front();
      return r;
    }
    handler = handler_;
  }
  if (handler) return handler(request);
  return Reply::json(
      500,
      R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"no reply programmed","reason":"InternalError","code":500})");
}

void ScriptedServer::serve(Connection& c) {
  // However serving ends (a drop, a close, the client leaving), the peer sees the close.
  struct CloseOnExit {
    Connection& c;
    ~CloseOnExit() {
      error_code ignored;
      c.lowest().shutdown(tcp::socket::shutdown_both, ignored);
    }
  } close_on_exit{c};
  std::string client_cn;
  if (c.secure) {
    error_code ec;
    c.secure->handshake(ssl::stream_base::server, ec);
    if (ec) return;  // the client refused our certificate, or went away
    if (X509* peer = SSL_get1_peer_certificate(c.secure->native_handle())) {
      char cn[256] = {};
      X509_NAME_get_text_by_NID(X509_get_subject_name(peer), NID_commonName, cn, sizeof cn);
      client_cn = cn;
      X509_free(peer);
    }
  }
  beast::flat_buffer buffer;
  for (;;) {
    http::request<http::string_body> req;
    error_code ec;
    if (c.secure) {
      http::read(*c.secure, buffer, req, ec);
    } else {
      http::read(*c.plain, buffer, req, ec);
    }
    if (ec) return;
    RecordedRequest rec;
    rec.method = std::string(req.method_string());
    rec.target = std::string(req.target());
    const auto q = rec.target.find('?');
    rec.path = rec.target.substr(0, q);
    if (q != std::string::npos) {
      std::stringstream params(rec.target.substr(q + 1));
      std::string pair;
      while (std::getline(params, pair, '&')) {
        const auto eq = pair.find('=');
        rec.query[decode(pair.substr(0, eq))] =
            eq == std::string::npos ? std::string{} : decode(pair.substr(eq + 1));
      }
    }
    for (const auto& field : req.base()) {
      std::string name(field.name_string());
      for (auto& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      rec.headers[name] = std::string(field.value());
    }
    rec.body = req.body();
    rec.connection = c.id;
    rec.client_cert_cn = client_cn;
    const bool client_keep_alive = req.keep_alive();
    {
      std::lock_guard lock(mu_);
      requests_.push_back(rec);
    }
    cv_.notify_all();

    Reply reply = nextReply(rec);
    if (reply.drop == Reply::Drop::BeforeResponse) return;
    const bool close = reply.close_after || !client_keep_alive || reply.drop != Reply::Drop::None ||
                       (reply.chunked && reply.hold_open);
    std::string head = fmt::format("HTTP/1.1 {} {}\r\nContent-Type: {}\r\n", reply.status,
                                   reasonPhrase(reply.status), reply.content_type);
    for (const auto& [k, v] : reply.headers) head += fmt::format("{}: {}\r\n", k, v);
    if (close) head += "Connection: close\r\n";
    if (reply.chunked) {
      head += "Transfer-Encoding: chunked\r\n\r\n";
      if (c.write(head)) return;
      for (const auto& chunk : reply.chunks) {
        if (reply.chunk_delay.count() > 0) {
          std::unique_lock lock(mu_);
          if (cv_.wait_for(lock, reply.chunk_delay, [this] { return stopping_; })) return;
        }
        if (c.write(fmt::format("{:x}\r\n{}\r\n", chunk.size(), chunk))) return;
      }
      if (reply.drop == Reply::Drop::MidBody) return;  // no terminating chunk
      if (reply.hold_open) {
        std::unique_lock lock(mu_);
        const auto generation = release_generation_;
        cv_.wait(lock, [&] { return stopping_ || release_generation_ != generation; });
        if (stopping_) return;
      }
      if (c.write("0\r\n\r\n")) return;
    } else {
      head += fmt::format("Content-Length: {}\r\n\r\n", reply.body.size());
      if (reply.drop == Reply::Drop::MidBody) {
        c.write(head + reply.body.substr(0, reply.body.size() / 2));
        return;
      }
      if (c.write(head + reply.body)) return;
    }
    if (close) {
      error_code ignored;
      c.lowest().shutdown(tcp::socket::shutdown_send, ignored);
      return;
    }
  }
}

}  // namespace troupe::kube::testing
