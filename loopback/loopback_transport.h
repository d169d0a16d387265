#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <stop_token>
#include <string_view>

#include "apiserver/http/http_message.h"
#include "kube/transport.h"

// The connection between `troupe serve` and its own clients: the in-process operator and
// the simulated kubelets. Each request goes to the embedded server's request handler (the
// one its HTTPS sessions call: authentication, routing, admission, storage, watch) on the
// calling thread, without TLS, sockets, HTTP framing or the server's I/O and worker
// threads. The request and its answer keep their REST form (path, query, headers, JSON
// body, Status on failure), so the clients reach the server through the API and nothing
// else, exactly as `troupe operator` does against a real kube-apiserver.
//
// A watch runs as the HTTPS server runs it: the handler's stream pushes chunks into a
// queue, from any thread, and the watching thread hands them to the client; a watcher
// that falls more than `stream_backlog_limit` bytes behind has its stream ended, as a slow
// HTTPS client has, and resumes.
//
// Threading: thread-safe; a call blocks the calling thread until the handler answers (a
// write: until it is durable). The handler is not interrupted: as with a request the
// server has read, `timeout` bounds only a stream.
namespace troupe::loopback {

struct LoopbackOptions {
  // The HTTPS server's limit (apiserver/http/https_server.h): a body refused there is
  // refused here.
  std::size_t body_limit = 3 * 1024 * 1024;
  // A watch whose queued events pass this is ended, and its watcher resumes from the last
  // resourceVersion it saw. Four times the HTTPS server's 16 MiB: this queue is a
  // watcher's whole backlog, where over HTTPS the sockets' buffers hold several MiB more
  // beyond the server's count, and the watchers are the server's own operator and kubelets.
  // At 16 MiB the kubelets' and the operator's pod watches, busy through a burst of
  // 50,000 pods on 2 cores, were ended and resumed nine times in one full-size benchmark.
  std::size_t stream_backlog_limit = 64 * 1024 * 1024;
};

class LoopbackTransport final : public kube::Transport {
 public:
  using Handler = std::function<apiserver::http::Response(const apiserver::http::Request& request)>;

  explicit LoopbackTransport(Handler handler, LoopbackOptions options = {});

  kube::ApiResult<kube::HttpResponse> send(const kube::HttpRequest& request,
                                           std::chrono::milliseconds timeout,
                                           bool* reused = nullptr) override;

  kube::ApiResult<kube::HttpResponse> stream(
      const kube::HttpRequest& request, std::chrono::milliseconds timeout, std::stop_token stop,
      const std::function<void(std::string_view)>& on_body) override;

 private:
  // The handler's answer; a handler that throws answers 500, as the HTTPS session does.
  apiserver::http::Response answer(const kube::HttpRequest& request) const;

  Handler handler_;
  LoopbackOptions options_;
};

}  // namespace troupe::loopback
