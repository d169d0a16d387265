#include <fmt/format.h>

#include <chrono>

#include "apiserver/http/beast_session.h"
#include "common/log.h"
#include "common/thread_name.h"

namespace troupe::apiserver::http {

namespace bhttp = beast::http;

namespace {

// A write joins queued chunks up to about this many bytes (four TLS records).
constexpr std::size_t kMaxJoinedBytes = 64 * 1024;

// The sink a stream writes to: forwards chunks to the session's strand and refuses
// them once the session is gone or its backlog passes the limit.
class SessionSink final : public StreamSink {
 public:
  SessionSink(std::weak_ptr<Session> session, std::size_t limit)
      : session_(std::move(session)), limit_(limit) {}

  bool push(std::string chunk) override {
    if (done_.load()) return false;
    auto session = session_.lock();
    if (!session) {
      done_ = true;
      return false;
    }
    if (session->backlog_bytes.load() + chunk.size() > limit_) {
      done_ = true;
      log::warn("watch client too slow, ending its stream", {{"limit_bytes", limit_}});
      session->postAbort();
      return false;
    }
    session->backlog_bytes += chunk.size();
    session->postChunk(std::move(chunk));
    return true;
  }

  void finish() override {
    if (done_.exchange(true)) return;
    if (auto session = session_.lock()) session->postFinish();
  }

 private:
  std::weak_ptr<Session> session_;
  std::size_t limit_;
  std::atomic<bool> done_{false};
};

}  // namespace

Request toRequest(bhttp::request<bhttp::string_body>&& message, std::string remote) {
  Request request;
  request.method = std::string(message.method_string());
  request.target = std::string(message.target());
  for (const auto& field : message) {
    std::string name(field.name_string());
    for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    request.headers[name] = std::string(field.value());
  }
  request.body = std::move(message.body());
  request.remote = std::move(remote);
  parseTarget(request);
  return request;
}

Session::Session(tcp::socket&& socket, ssl::context& tls, std::shared_ptr<ServerShared> shared)
    : stream_(std::move(socket), tls), shared_(std::move(shared)) {
  beast::error_code ec;
  auto endpoint = beast::get_lowest_layer(stream_).socket().remote_endpoint(ec);
  if (!ec) remote_ = endpoint.address().to_string() + ":" + std::to_string(endpoint.port());
}

void Session::run() {
  net::dispatch(stream_.get_executor(), [self = shared_from_this()] {
    beast::get_lowest_layer(self->stream_)
        .expires_after(std::chrono::seconds(self->shared_->options.read_timeout_seconds));
    self->stream_.async_handshake(ssl::stream_base::server,
                                  [self](beast::error_code ec) { self->onHandshake(ec); });
  });
}

void Session::onHandshake(beast::error_code ec) {
  if (ec) return;  // a client that cannot finish TLS simply goes away
  doRead();
}

void Session::doRead() {
  if (shared_->stopping) return shutdown();
  parser_.emplace();
  parser_->body_limit(shared_->options.body_limit);
  parser_->header_limit(static_cast<std::uint32_t>(shared_->options.header_limit));
  beast::get_lowest_layer(stream_).expires_after(
      std::chrono::seconds(shared_->options.read_timeout_seconds));
  bhttp::async_read(stream_, buffer_, *parser_,
                    [self = shared_from_this()](beast::error_code ec, std::size_t bytes) {
                      self->onRead(ec, bytes);
                    });
}

void Session::onRead(beast::error_code ec, std::size_t) {
  if (ec == bhttp::error::body_limit) {
    return sendFailure(
        413, "RequestEntityTooLarge",
        "Request entity too large: limit is " + std::to_string(shared_->options.body_limit));
  }
  if (ec == bhttp::error::header_limit) {
    return sendFailure(431, "RequestHeaderFieldsTooLarge",
                       "Request header fields too large: limit is " +
                           std::to_string(shared_->options.header_limit));
  }
  if (ec) return shutdown();

  auto message = parser_->release();
  bool keep_alive = message.keep_alive();
  Request request = toRequest(std::move(message), remote_);

  net::post(shared_->workers, [self = shared_from_this(), request = std::move(request),
                               keep_alive]() mutable {
    // net::thread_pool starts its own threads; each names itself on its first request.
    thread_local const bool named = (nameThisThread("api-handler"), true);
    (void)named;
    Response response;
    try {
      response = self->shared_->handler(request);
    } catch (const std::exception& e) {
      log::error("handler threw", {{"error", e.what()}, {"target", request.target}});
      response.status = 500;
      response.body = statusBody(500, "InternalError", e.what());
    }
    if (!keep_alive) response.headers.emplace_back("Connection", "close");
    net::post(self->stream_.get_executor(), [self, response = std::move(response)]() mutable {
      if (response.stream) {
        self->beginStream(std::move(response));
      } else {
        self->sendResponse(std::move(response));
      }
    });
  });
}

void Session::sendFailure(int status, const std::string& reason, const std::string& message) {
  Response response;
  response.status = status;
  response.body = statusBody(status, reason, message);
  response.headers.emplace_back("Connection", "close");
  unread_input_ = true;
  sendResponse(std::move(response));
}

void Session::sendResponse(Response response) {
  auto message = std::make_shared<bhttp::response<bhttp::string_body>>(
      static_cast<bhttp::status>(response.status), 11);
  message->set(bhttp::field::content_type, response.content_type);
  message->set("Audit-Id", "00000000-0000-0000-0000-000000000000");
  message->set(bhttp::field::cache_control, "no-cache, private");
  bool close = false;
  for (auto& [name, value] : response.headers) {
    if (name == "Connection" && value == "close") close = true;
    message->insert(name, value);
  }
  message->keep_alive(!close);
  message->body() = std::move(response.body);
  message->prepare_payload();
  beast::get_lowest_layer(stream_).expires_after(std::chrono::seconds(30));
  bhttp::async_write(stream_, *message,
                     [self = shared_from_this(), message, close](
                         beast::error_code ec, std::size_t) { self->onWrite(close, ec); });
}

void Session::onWrite(bool close, beast::error_code ec) {
  if (ec) return shutdown();
  if (close && unread_input_) return lingeringClose();
  if (close) return shutdown();
  doRead();
}

void Session::beginStream(Response response) {
  stream_source_ = response.stream;
  {
    std::lock_guard lock(shared_->streams_mu);
    if (shared_->stopping) {
      stream_source_.reset();
      return shutdown();
    }
    shared_->streams.insert(stream_source_);
  }
  stream_header_ = std::make_unique<bhttp::response<bhttp::empty_body>>(
      static_cast<bhttp::status>(response.status), 11);
  stream_header_->set(bhttp::field::content_type, response.content_type);
  stream_header_->set(bhttp::field::cache_control, "no-cache, private");
  for (auto& [name, value] : response.headers) stream_header_->insert(name, value);
  stream_header_->chunked(true);
  stream_header_->keep_alive(false);
  stream_serializer_ =
      std::make_unique<bhttp::response_serializer<bhttp::empty_body>>(*stream_header_);
  // A watch lives as long as the client wants it; the backlog limit guards writes.
  beast::get_lowest_layer(stream_).expires_never();
  writing_ = true;
  bhttp::async_write_header(
      stream_, *stream_serializer_,
      [self = shared_from_this()](beast::error_code ec, std::size_t) { self->onStreamHeader(ec); });
}

void Session::onStreamHeader(beast::error_code ec) {
  writing_ = false;
  if (ec) return endStream(false);
  probeClient();
  stream_source_->start(
      std::make_shared<SessionSink>(weak_from_this(), shared_->options.stream_backlog_limit));
  writeNextChunk();
}

// While a stream runs, one read stays pending so that a client that hangs up is noticed
// at once and its stream released.
void Session::probeClient() {
  stream_.async_read_some(net::buffer(probe_),
                          [self = shared_from_this()](beast::error_code ec, std::size_t) {
                            if (ec) {
                              self->endStream(false);
                            } else if (!self->closed_) {
                              self->probeClient();
                            }
                          });
}

void Session::postChunk(std::string chunk) {
  {
    std::lock_guard lock(inbox_mu_);
    inbox_.push_back(std::move(chunk));
    if (drain_posted_) return;
    drain_posted_ = true;
  }
  net::post(stream_.get_executor(), [self = shared_from_this()] { self->drainInbox(); });
}

// On the strand. A finish or abort posted after a push runs after the drain that carries
// that push: a push either joins a drain not yet swapped, or posts a new one first.
void Session::drainInbox() {
  std::vector<std::string> chunks;
  {
    std::lock_guard lock(inbox_mu_);
    chunks.swap(inbox_);
    drain_posted_ = false;
  }
  if (closed_) return;
  for (auto& chunk : chunks) pending_.push_back(std::move(chunk));
  writeNextChunk();
}

void Session::postFinish() {
  net::post(stream_.get_executor(), [self = shared_from_this()] {
    self->finish_requested_ = true;
    self->writeNextChunk();
  });
}

void Session::postAbort() {
  net::post(stream_.get_executor(), [self = shared_from_this()] { self->endStream(false); });
}

void Session::writeNextChunk() {
  if (writing_ || closed_ || !stream_source_) return;
  if (pending_.empty()) {
    if (finish_requested_) {
      writing_ = true;
      net::async_write(stream_, bhttp::make_chunk_last(),
                       [self = shared_from_this()](beast::error_code, std::size_t) {
                         self->writing_ = false;
                         self->endStream(true);
                       });
    }
    return;
  }
  // Everything queued goes out in one write: one SSL_write and one send for a burst of
  // events rather than one per event. Each event stays its own chunk, framed as Beast's
  // make_chunk frames one ("<hex size>\r\n<data>\r\n"), so the bytes a client reads
  // are the same whether its events were joined or not.
  out_.clear();
  out_payload_ = 0;
  while (!pending_.empty() && out_.size() < kMaxJoinedBytes) {
    const std::string& chunk = pending_.front();
    out_payload_ += chunk.size();
    // An empty chunk would read as the end of the response.
    if (!chunk.empty()) {
      out_ += fmt::format("{:x}\r\n", chunk.size());
      out_ += chunk;
      out_ += "\r\n";
    }
    pending_.pop_front();
  }
  writing_ = true;
  net::async_write(stream_, net::buffer(out_),
                   [self = shared_from_this()](beast::error_code ec, std::size_t) {
                     self->writing_ = false;
                     self->backlog_bytes -= self->out_payload_;
                     self->out_payload_ = 0;
                     if (ec) return self->endStream(false);
                     self->writeNextChunk();
                   });
}

void Session::endStream(bool) {
  if (stream_source_) {
    auto source = std::move(stream_source_);
    stream_source_.reset();
    {
      std::lock_guard lock(shared_->streams_mu);
      shared_->streams.erase(source);
    }
    source->stop();
  }
  if (writing_) {
    // The pending write completes (or fails) and comes back here.
    closed_ = true;
    beast::get_lowest_layer(stream_).cancel();
    return;
  }
  shutdown();
}

// The lingering close of HTTP servers: end our direction (the client reads the response,
// then end of stream), and read and drop what the client still sends until it closes, for
// a bounded time and amount, so the close never meets unread bytes.
void Session::lingeringClose() {
  beast::error_code ec;
  beast::get_lowest_layer(stream_).socket().shutdown(tcp::socket::shutdown_send, ec);
  if (ec) return shutdown();
  beast::get_lowest_layer(stream_).expires_after(std::chrono::seconds(2));
  discardInput();
}

void Session::discardInput() {
  constexpr std::size_t kMostDiscarded = 16 * 1024 * 1024;
  buffer_.clear();
  beast::get_lowest_layer(stream_).async_read_some(
      buffer_.prepare(64 * 1024), [self = shared_from_this()](beast::error_code ec, std::size_t n) {
        self->discarded_ += n;
        if (ec || self->discarded_ > kMostDiscarded) return self->shutdown();
        self->discardInput();
      });
}

void Session::shutdown() {
  if (closed_ && !beast::get_lowest_layer(stream_).socket().is_open()) return;
  closed_ = true;
  beast::error_code ec;
  beast::get_lowest_layer(stream_).socket().shutdown(tcp::socket::shutdown_both, ec);
  beast::get_lowest_layer(stream_).socket().close(ec);
}

}  // namespace troupe::apiserver::http
