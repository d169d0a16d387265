#include "loopback/loopback_transport.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "common/log.h"

namespace troupe::loopback {

namespace http = apiserver::http;

namespace {

using Clock = std::chrono::steady_clock;

http::Request serverRequest(const kube::HttpRequest& request) {
  http::Request out;
  out.method = request.method;
  out.target = request.target;
  for (const auto& [name, value] : request.headers) {
    std::string lower = name;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    out.headers[lower] = value;
  }
  out.body = request.body;
  out.remote = "loopback";
  http::parseTarget(out);
  return out;
}

kube::HttpResponse clientResponse(http::Response response) {
  kube::HttpResponse out;
  out.status = response.status;
  out.headers = std::move(response.headers);
  out.headers.emplace_back("Content-Type", response.content_type);
  out.body = std::move(response.body);
  return out;
}

// Where a watch's stream pushes: a queue the watching thread drains. Pushes come from the
// store's delivery thread, the watch ticker or the handler itself.
class QueueSink final : public http::StreamSink {
 public:
  enum class Next { Chunks, Finished, FellBehind, Stopped, TimedOut };

  explicit QueueSink(std::size_t limit) : limit_(limit) {}

  bool push(std::string chunk) override {
    std::lock_guard lock(mu_);
    if (state_ != State::Open) return false;
    if (queued_bytes_ + chunk.size() > limit_) {
      state_ = State::FellBehind;
      cv_.notify_all();
      return false;
    }
    queued_bytes_ += chunk.size();
    chunks_.push_back(std::move(chunk));
    // The watcher waits only on an empty queue: one wake-up per batch, not per event.
    if (chunks_.size() == 1) cv_.notify_all();
    return true;
  }

  void finish() override {
    std::lock_guard lock(mu_);
    if (state_ != State::Open) return;
    state_ = State::Finished;
    cv_.notify_all();
  }

  // Moves the queued chunks into `out`; waits for one, the stream's end, `stop` or
  // `deadline` while none is queued. Chunks queued before the end come out first.
  Next take(std::deque<std::string>& out, std::stop_token stop, Clock::time_point deadline) {
    std::unique_lock lock(mu_);
    cv_.wait_until(lock, stop, deadline, [&] { return !chunks_.empty() || state_ != State::Open; });
    if (!chunks_.empty()) {
      out.swap(chunks_);
      queued_bytes_ = 0;
      return Next::Chunks;
    }
    if (state_ == State::Finished) return Next::Finished;
    if (state_ == State::FellBehind) return Next::FellBehind;
    // The watcher is leaving: later pushes are refused.
    state_ = State::Closed;
    return stop.stop_requested() ? Next::Stopped : Next::TimedOut;
  }

  void close() {
    std::lock_guard lock(mu_);
    state_ = State::Closed;
  }

 private:
  enum class State { Open, Finished, FellBehind, Closed };
  const std::size_t limit_;
  std::mutex mu_;
  std::condition_variable_any cv_;
  std::deque<std::string> chunks_;
  std::size_t queued_bytes_ = 0;
  State state_ = State::Open;
};

}  // namespace

LoopbackTransport::LoopbackTransport(Handler handler, LoopbackOptions options)
    : handler_(std::move(handler)), options_(options) {}

http::Response LoopbackTransport::answer(const kube::HttpRequest& request) const {
  http::Response response;
  if (request.body.size() > options_.body_limit) {
    response.status = 413;
    response.body = http::statusBody(
        413, "RequestEntityTooLarge",
        "Request entity too large: limit is " + std::to_string(options_.body_limit));
    return response;
  }
  const http::Request server_request = serverRequest(request);
  try {
    response = handler_(server_request);
  } catch (const std::exception& e) {
    log::error("handler threw", {{"error", e.what()}, {"target", request.target}});
    response = http::Response{};
    response.status = 500;
    response.body = http::statusBody(500, "InternalError", e.what());
  }
  return response;
}

kube::ApiResult<kube::HttpResponse> LoopbackTransport::send(const kube::HttpRequest& request,
                                                            std::chrono::milliseconds /*timeout*/,
                                                            bool* reused) {
  if (reused != nullptr) *reused = false;
  http::Response response = answer(request);
  if (response.stream) {
    // Only a watch streams, and a watch comes through stream().
    response.stream->stop();
    return kube::transportError(ErrorCode::Internal, kube::transport_reason::kProtocol,
                                fmt::format("{} {}: the answer is a stream; open it as one",
                                            request.method, request.target));
  }
  return clientResponse(std::move(response));
}

kube::ApiResult<kube::HttpResponse> LoopbackTransport::stream(
    const kube::HttpRequest& request, std::chrono::milliseconds timeout, std::stop_token stop,
    const std::function<void(std::string_view)>& on_body) {
  const std::string what = fmt::format("{} {}", request.method, request.target);
  if (stop.stop_requested()) {
    return kube::transportError(ErrorCode::Unavailable, kube::transport_reason::kCancelled,
                                what + ": cancelled");
  }
  const auto deadline = Clock::now() + timeout;
  http::Response response = answer(request);
  if (!response.stream) {
    // An error answer is returned whole; a whole 2xx answer is the stream's only piece.
    kube::HttpResponse out = clientResponse(std::move(response));
    if (out.status >= 200 && out.status < 300) {
      if (!out.body.empty()) on_body(out.body);
      out.body.clear();
    }
    return out;
  }
  std::shared_ptr<http::ResponseStream> source = response.stream;
  auto sink = std::make_shared<QueueSink>(options_.stream_backlog_limit);
  source->start(sink);
  response.stream.reset();
  kube::HttpResponse header = clientResponse(std::move(response));
  std::deque<std::string> chunks;
  auto end = [&](kube::ApiResult<kube::HttpResponse> result) {
    sink->close();
    source->stop();
    return result;
  };
  for (;;) {
    const QueueSink::Next next = sink->take(chunks, stop, deadline);
    for (const std::string& chunk : chunks) {
      if (stop.stop_requested()) break;
      on_body(chunk);
    }
    chunks.clear();
    if (stop.stop_requested()) {
      return end(kube::transportError(ErrorCode::Unavailable, kube::transport_reason::kCancelled,
                                      what + ": cancelled"));
    }
    switch (next) {
      case QueueSink::Next::Chunks: continue;
      case QueueSink::Next::Finished: return end(header);
      case QueueSink::Next::FellBehind:
        log::warn("watch client too slow, ending its stream",
                  {{"limit_bytes", options_.stream_backlog_limit}, {"target", request.target}});
        return end(kube::transportError(
            ErrorCode::Unavailable, kube::transport_reason::kDroppedMidResponse,
            fmt::format("{}: the server ended the stream: the watcher fell more than {} bytes "
                        "behind",
                        what, options_.stream_backlog_limit)));
      case QueueSink::Next::Stopped:
        return end(kube::transportError(ErrorCode::Unavailable, kube::transport_reason::kCancelled,
                                        what + ": cancelled"));
      case QueueSink::Next::TimedOut:
        return end(
            kube::transportError(ErrorCode::Timeout, kube::transport_reason::kTimeout,
                                 fmt::format("{}: no end within {} ms", what, timeout.count())));
    }
  }
}

}  // namespace troupe::loopback
