#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <vector>

#include "apiserver/storage/object_store.h"

namespace troupe::apiserver::testing {

// Records what a watch delivers, for tests to wait on and inspect.
class EventCollector {
 public:
  WatchOptions options(std::string resource, std::string ns, Revision after) {
    WatchOptions o;
    o.resource = std::move(resource);
    o.ns = std::move(ns);
    o.after_revision = after;
    o.on_event = [this](const WatchEvent& event) {
      std::lock_guard lock(mu_);
      events_.push_back(event);
      cv_.notify_all();
    };
    o.on_close = [this](const Error& error) {
      std::lock_guard lock(mu_);
      close_error_ = error;
      ++closes_;
      cv_.notify_all();
    };
    return o;
  }

  // Waits until at least `n` events arrived (or the watch closed); false on timeout.
  bool waitFor(std::size_t n, std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, timeout, [&] { return events_.size() >= n || closes_ > 0; }) &&
           events_.size() >= n;
  }
  bool waitForClose(std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, timeout, [&] { return closes_ > 0; });
  }

  std::vector<WatchEvent> events() const {
    std::lock_guard lock(mu_);
    return events_;
  }
  std::vector<Revision> revisions() const {
    std::lock_guard lock(mu_);
    std::vector<Revision> out;
    for (auto& e : events_) out.push_back(e.revision());
    return out;
  }
  std::size_t size() const {
    std::lock_guard lock(mu_);
    return events_.size();
  }
  std::optional<Error> closeError() const {
    std::lock_guard lock(mu_);
    return close_error_;
  }
  int closes() const {
    std::lock_guard lock(mu_);
    return closes_;
  }

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<WatchEvent> events_;
  std::optional<Error> close_error_;
  int closes_ = 0;
};

}  // namespace troupe::apiserver::testing
