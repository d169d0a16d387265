#pragma once

// Private to http/: the Beast types of the listener and the session. Only
// https_server.cc and session.cc include this header (and the HTTP parser's fuzz harness).

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <array>
#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "apiserver/http/https_server.h"

namespace troupe::apiserver::http {

namespace beast = boost::beast;
namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
using tcp = boost::asio::ip::tcp;

// What every session of one server shares.
struct ServerShared {
  ServerOptions options;
  Handler handler;
  net::thread_pool workers;
  std::atomic<bool> stopping{false};
  // Streams in flight, so that stop() can end them (a watch holds store resources).
  std::mutex streams_mu;
  std::set<std::shared_ptr<ResponseStream>> streams;

  ServerShared(ServerOptions o, Handler h)
      : options(std::move(o)), handler(std::move(h)), workers(options.worker_threads) {}
};

// A request as Beast parsed it, as the handlers see it: header names lower-cased, the
// target split into path and query and percent-decoded.
Request toRequest(beast::http::request<beast::http::string_body>&& message, std::string remote);

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket&& socket, ssl::context& tls, std::shared_ptr<ServerShared> shared);
  void run();

  // Called through the sink, from any thread.
  void postChunk(std::string chunk);
  void postFinish();
  void postAbort();

 private:
  void onHandshake(beast::error_code ec);
  void doRead();
  void onRead(beast::error_code ec, std::size_t bytes);
  void sendResponse(Response response);
  void onWrite(bool close, beast::error_code ec);
  void sendFailure(int status, const std::string& reason, const std::string& message);

  void beginStream(Response response);
  void onStreamHeader(beast::error_code ec);
  void probeClient();
  void drainInbox();
  void writeNextChunk();
  void endStream(bool graceful);
  void shutdown();
  void lingeringClose();
  void discardInput();

  beast::ssl_stream<beast::tcp_stream> stream_;
  beast::flat_buffer buffer_;
  std::optional<beast::http::request_parser<beast::http::string_body>> parser_;
  std::shared_ptr<ServerShared> shared_;
  std::string remote_;

  // Streaming state, touched only on the session's strand.
  std::shared_ptr<ResponseStream> stream_source_;
  std::unique_ptr<beast::http::response<beast::http::empty_body>> stream_header_;
  std::unique_ptr<beast::http::response_serializer<beast::http::empty_body>> stream_serializer_;
  std::deque<std::string> pending_;
  // What the write in flight holds: the queued chunks framed and joined, and their payload
  // bytes (for the backlog count).
  std::string out_;
  std::size_t out_payload_ = 0;
  bool writing_ = false;
  bool finish_requested_ = false;
  bool closed_ = false;
  // Set when a response goes out before the request was read whole (413, 431): the
  // client may still be sending, and closing on unread bytes would make the kernel send a
  // reset that can destroy the response before the client reads it.
  bool unread_input_ = false;
  std::size_t discarded_ = 0;
  std::array<char, 256> probe_{};

  // Chunks pushed from other threads, waiting for the strand. Only the first push of a
  // burst posts to the strand; the rest join it, so a burst costs one hop, not one each.
  std::mutex inbox_mu_;
  std::vector<std::string> inbox_;
  bool drain_posted_ = false;

 public:
  // Bytes queued but not yet written; read by the sink to refuse a runaway backlog.
  std::atomic<std::size_t> backlog_bytes{0};
};

}  // namespace troupe::apiserver::http
