#include "kube/watch_stream.h"

#include <condition_variable>

#include "common/log.h"
#include "kube/backoff.h"
#include "kube/object_cache.h"

namespace troupe::kube {
namespace {

// Sleeps `d` unless `stop` comes first; returns false when stopped.
bool sleepUnlessStopped(std::chrono::milliseconds d, std::stop_token stop) {
  std::mutex mu;
  std::condition_variable_any cv;
  std::unique_lock lock(mu);
  return !cv.wait_for(lock, stop, d, [] { return false; });
}

}  // namespace

WatchStream::WatchStream(KubeClient& client, ResourceType type, std::string ns, Options options)
    : client_(client),
      type_(std::move(type)),
      ns_(std::move(ns)),
      options_(std::move(options)),
      resource_version_(options_.watch.resource_version) {}

std::string WatchStream::resourceVersion() const {
  std::lock_guard lock(mu_);
  return resource_version_;
}

ApiResult<void> WatchStream::run(const Handler& handler, std::stop_token stop) {
  Backoff backoff(options_.retry_base, options_.retry_max, options_.seed);
  int failures = 0;
  bool first = true;
  while (!stop.stop_requested()) {
    if (!first) reconnects_.fetch_add(1);
    first = false;
    WatchOptions request = options_.watch;
    request.resource_version = resourceVersion();
    std::optional<ApiError> expired;
    std::optional<ApiError> in_stream_error;
    bool got_event = false;
    auto result = client_.watch(
        type_, ns_, request,
        [&](WatchEvent&& event) {
          if (event.type == WatchEventType::Error) {
            ApiError error = apiErrorFromStatus(event.object);
            if (error.isGone()) {
              expired = error;
            } else {
              in_stream_error = error;
            }
            return;
          }
          if (expired) return;  // nothing after a 410 is trusted
          got_event = true;
          const std::string rv = resourceVersionOf(event.object);
          handler(std::move(event));
          if (!rv.empty()) {
            std::lock_guard lock(mu_);
            resource_version_ = rv;
          }
        },
        stop);
    if (expired) return *expired;
    if (!result && result.error().isGone()) return result.error();
    if (stop.stop_requested()) break;
    if (result && !in_stream_error) {
      // The server ended the request at timeoutSeconds: open the next one right away,
      // unless it ended without a single event (a server answering empty streams must not
      // turn this loop into a busy one).
      failures = 0;
      if (!got_event && !sleepUnlessStopped(options_.retry_base, stop)) break;
      continue;
    }
    const ApiError& error = in_stream_error ? *in_stream_error : result.error();
    if (got_event) failures = 0;
    log::warn("watch failed; resuming", {{"resource", type_.qualifiedName()},
                                         {"namespace", ns_},
                                         {"resourceVersion", resourceVersion()},
                                         {"reason", error.reason},
                                         {"error", error.describe()}});
    if (!sleepUnlessStopped(backoff.delay(failures++, error.retry_after), stop)) break;
  }
  return {};
}

}  // namespace troupe::kube
