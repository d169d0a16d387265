#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <stop_token>
#include <string>

#include "kube/api_error.h"
#include "kube/kube_client.h"

// A watch that outlives its connections. The server ends every watch request after
// `timeoutSeconds` and connections drop; WatchStream opens the next request from the last
// resourceVersion it saw (from an event or a BOOKMARK), so the handler sees every event
// exactly once and in order. It gives up only when that version is too old for the server
// (410 Gone, as an ERROR event inside a 200 stream or as an HTTP 410): the caller must then
// relist and start again from the list's resourceVersion (Informer does this).
//
// Start it from a known version (a list's metadata.resourceVersion, or "0"): from "" a
// reconnection before the first event could not say where to resume.
//
// Threading: run() blocks its caller, who gives it a thread of its own (std::jthread) and
// stops it through the stop token. The handler runs on that thread.
namespace troupe::kube {

class WatchStream {
 public:
  struct Options {
    WatchOptions watch;  // selectors, starting resource_version, per-request timeout
    std::chrono::milliseconds retry_base{100};
    std::chrono::milliseconds retry_max{5000};
    std::uint64_t seed = 1;  // jitter of the reconnection backoff
  };
  // Called for ADDED, MODIFIED, DELETED and BOOKMARK events (never ERROR); the event is
  // the handler's to keep.
  using Handler = std::function<void(WatchEvent&&)>;

  WatchStream(KubeClient& client, ResourceType type, std::string ns, Options options);

  // Runs until `stop` (returns success) or until the resume version expires (returns the
  // 410 ApiError, isGone()). Other failures reconnect after a backoff.
  ApiResult<void> run(const Handler& handler, std::stop_token stop);

  // Where the next request would start: the last version seen.
  std::string resourceVersion() const;
  // Watch requests opened after the first one.
  int reconnects() const { return reconnects_.load(); }

 private:
  KubeClient& client_;
  const ResourceType type_;
  const std::string ns_;
  const Options options_;
  mutable std::mutex mu_;
  std::string resource_version_;  // guarded by mu_
  std::atomic<int> reconnects_{0};
};

}  // namespace troupe::kube
