#include "apiserver/storage/watch_hub.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <optional>
#include <utility>

#include "apiserver/storage/background_thread.h"
#include "apiserver/storage/object_codec.h"
#include "common/check.h"

namespace troupe::apiserver {

using EventPtr = std::shared_ptr<const WatchEvent>;

struct WatchHub::Watcher {
  std::uint64_t id = 0;
  std::string resource;
  std::string ns;  // empty: every namespace
  std::function<void(const WatchEvent&)> on_event;
  std::function<void(const Error&)> on_close;
  // Set by the Watch's destructor; no callback starts once it is true.
  std::atomic<bool> cancelled{false};

  std::mutex mu;
  std::condition_variable idle;  // notified when `delivering` turns false
  // Events with a revision at or below this are never queued.
  Revision after = 0;
  // Undelivered events in revision order; its size never exceeds `limit` (at the
  // limit the watcher is closed and the queue cleared).
  std::deque<EventPtr> queue;
  std::size_t limit = 0;
  // True while watch() reads history from the log: live events queue up behind it,
  // and nothing is delivered until the history is put in front of them.
  bool replaying = false;
  // True while the watcher sits in the ready queue or a delivery thread works on it,
  // so at most one thread delivers to a watcher and events stay in order.
  bool scheduled = false;
  bool delivering = false;
  std::thread::id delivering_thread;
  // Why the hub ends this watch; on_close(*close_error) follows the queued events.
  std::optional<Error> close_error;
  bool closed = false;  // on_close ran or the watch was cancelled: nothing more happens

  bool matches(const ObjectKey& key) const {
    return key.resource == resource && (ns.empty() || key.ns == ns);
  }
};

struct WatchHub::Core {
  WatchHubOptions options;
  HistoryReader history;

  // Fan-out state.
  mutable std::mutex mu;
  bool closed = false;
  // Every event with a revision up to `published` has been queued to its watchers.
  Revision published = 0;
  // The ring holds every event with a revision in (ring_base, published].
  std::deque<EventPtr> ring;
  Revision ring_base = 0;
  // resource -> namespace ("" for all-namespace and cluster-scoped watches) -> id -> watcher.
  std::map<std::string, std::map<std::string, std::map<std::uint64_t, std::shared_ptr<Watcher>>>>
      index;
  std::size_t watcher_count = 0;
  std::uint64_t next_id = 1;

  // Committed batches waiting for the fan-out thread.
  std::mutex inbox_mu;
  std::condition_variable inbox_cv;
  std::deque<std::vector<CommittedEvent>> inbox;
  bool inbox_stopping = false;

  // Watchers with something to deliver.
  std::mutex ready_mu;
  std::condition_variable ready_cv;
  std::deque<std::shared_ptr<Watcher>> ready;
  bool ready_stopping = false;

  void schedule(std::vector<std::shared_ptr<Watcher>> watchers) {
    if (watchers.empty()) return;
    const std::size_t n = watchers.size();
    {
      std::lock_guard lock(ready_mu);
      for (auto& w : watchers) ready.push_back(std::move(w));
    }
    // Wake as many delivery threads as there is work for, not all of them every time.
    if (n >= options.delivery_threads) {
      ready_cv.notify_all();
    } else {
      for (std::size_t i = 0; i < n; ++i) ready_cv.notify_one();
    }
  }

  // Requires `mu`.
  void registerWatcher(const std::shared_ptr<Watcher>& w) {
    index[w->resource][w->ns][w->id] = w;
    ++watcher_count;
  }

  // Requires `mu`.
  void unregisterWatcher(const Watcher& w) {
    auto by_resource = index.find(w.resource);
    if (by_resource == index.end()) return;
    auto by_ns = by_resource->second.find(w.ns);
    if (by_ns == by_resource->second.end()) return;
    if (by_ns->second.erase(w.id) > 0) --watcher_count;
    if (by_ns->second.empty()) by_resource->second.erase(by_ns);
    if (by_resource->second.empty()) index.erase(by_resource);
  }

  // Queues `event` to `w`, or closes `w` when it is full. Requires `mu` (not w->mu).
  void offer(const std::shared_ptr<Watcher>& w, const EventPtr& event,
             std::vector<std::shared_ptr<Watcher>>& to_schedule,
             std::vector<std::shared_ptr<Watcher>>& to_unregister) {
    std::lock_guard lock(w->mu);
    if (w->closed || w->close_error || w->cancelled) return;
    if (event->revision() <= w->after) return;
    if (w->queue.size() >= w->limit) {
      w->queue.clear();
      w->close_error = makeError(
          ErrorCode::TooManyRequests, "",
          fmt::format("watch of {} fell more than {} events behind at revision {}; watch again "
                      "from the last revision received",
                      w->resource, w->limit, event->revision()));
      to_unregister.push_back(w);
    } else {
      w->queue.push_back(event);
    }
    if (!w->scheduled && !w->replaying) {
      w->scheduled = true;
      to_schedule.push_back(w);
    }
  }

  void fanOut(std::vector<CommittedEvent> batch) {
    std::vector<EventPtr> events;
    events.reserve(batch.size());
    for (auto& committed : batch) {
      events.push_back(std::make_shared<const WatchEvent>(
          committed.type, std::move(committed.key), committed.revision,
          revisionText(committed.value, committed.revision)));
    }
    std::vector<std::shared_ptr<Watcher>> to_schedule;
    std::vector<std::shared_ptr<Watcher>> to_unregister;
    {
      std::lock_guard lock(mu);
      if (closed) return;
      for (const auto& event : events) {
        const ObjectKey& key = event->key();
        TROUPE_CHECK(event->revision() > published, "events published out of order: {} after {}",
                     event->revision(), published);
        published = event->revision();
        ring.push_back(event);
        while (ring.size() > options.history_events) {
          ring_base = ring.front()->revision();
          ring.pop_front();
        }
        auto by_resource = index.find(key.resource);
        if (by_resource == index.end()) continue;
        auto deliver_ns = [&](const std::string& ns) {
          auto by_ns = by_resource->second.find(ns);
          if (by_ns == by_resource->second.end()) return;
          for (auto& [id, w] : by_ns->second) offer(w, event, to_schedule, to_unregister);
        };
        deliver_ns("");
        if (!key.ns.empty()) deliver_ns(key.ns);
      }
      for (auto& w : to_unregister) unregisterWatcher(*w);
    }
    schedule(std::move(to_schedule));
  }

  void fanOutLoop() {
    while (true) {
      std::deque<std::vector<CommittedEvent>> batches;
      {
        std::unique_lock lock(inbox_mu);
        inbox_cv.wait(lock, [&] { return inbox_stopping || !inbox.empty(); });
        if (inbox.empty()) return;  // stopping, and everything published is fanned out
        batches.swap(inbox);
      }
      for (auto& batch : batches) fanOut(std::move(batch));
    }
  }

  // One turn for `w`: up to events_per_turn events, or its on_close.
  void deliverTurn(const std::shared_ptr<Watcher>& w) {
    std::unique_lock lock(w->mu);
    if (w->cancelled || w->closed || w->replaying) {
      w->scheduled = false;
      return;
    }
    if (w->queue.empty() && !w->close_error) {
      w->scheduled = false;
      return;
    }
    w->delivering = true;
    w->delivering_thread = std::this_thread::get_id();
    if (!w->queue.empty()) {
      std::size_t n = std::min(options.events_per_turn, w->queue.size());
      std::vector<EventPtr> turn(w->queue.begin(), w->queue.begin() + static_cast<long>(n));
      w->queue.erase(w->queue.begin(), w->queue.begin() + static_cast<long>(n));
      lock.unlock();
      for (const auto& event : turn) {
        if (w->cancelled) break;
        w->on_event(*event);
      }
      lock.lock();
    } else {
      Error error = *w->close_error;
      w->close_error.reset();
      w->closed = true;
      lock.unlock();
      if (!w->cancelled && w->on_close) w->on_close(error);
      lock.lock();
    }
    w->delivering = false;
    w->idle.notify_all();
    bool again = !w->cancelled && !w->closed && (!w->queue.empty() || w->close_error);
    if (!again) {
      w->scheduled = false;
      return;
    }
    lock.unlock();
    schedule({w});  // to the back of the line: round-robin between busy watchers
  }

  void deliveryLoop() {
    while (true) {
      std::shared_ptr<Watcher> w;
      {
        std::unique_lock lock(ready_mu);
        ready_cv.wait(lock, [&] { return ready_stopping || !ready.empty(); });
        if (ready.empty()) return;
        w = std::move(ready.front());
        ready.pop_front();
      }
      deliverTurn(w);
    }
  }
};

namespace {

class HubWatch final : public Watch {
 public:
  HubWatch(std::weak_ptr<WatchHub::Core> core, std::shared_ptr<WatchHub::Watcher> watcher)
      : core_(std::move(core)), watcher_(std::move(watcher)) {}

  ~HubWatch() override {
    watcher_->cancelled = true;
    if (auto core = core_.lock()) {
      std::lock_guard lock(core->mu);
      core->unregisterWatcher(*watcher_);
    }
    std::unique_lock lock(watcher_->mu);
    // A callback may destroy its own Watch; only other threads wait for it to return.
    watcher_->idle.wait(lock, [&] {
      return !watcher_->delivering || watcher_->delivering_thread == std::this_thread::get_id();
    });
    watcher_->closed = true;
    watcher_->queue.clear();
  }

 private:
  std::weak_ptr<WatchHub::Core> core_;
  std::shared_ptr<WatchHub::Watcher> watcher_;
};

}  // namespace

WatchHub::WatchHub(WatchHubOptions options, HistoryReader history, Revision published)
    : core_(std::make_shared<Core>()) {
  TROUPE_CHECK(options.delivery_threads > 0, "a watch hub needs a delivery thread");
  TROUPE_CHECK(options.events_per_turn > 0, "events_per_turn must be positive");
  core_->options = options;
  core_->history = std::move(history);
  core_->published = published;
  core_->ring_base = published;
  threads_.push_back(startBackgroundThread("store-fanout", [core = core_] { core->fanOutLoop(); }));
  for (std::size_t i = 0; i < options.delivery_threads; ++i) {
    threads_.push_back(
        startBackgroundThread("store-deliver", [core = core_] { core->deliveryLoop(); }));
  }
}

WatchHub::~WatchHub() { close(); }

void WatchHub::publish(std::vector<CommittedEvent> events) {
  if (events.empty()) return;
  {
    std::lock_guard lock(core_->inbox_mu);
    if (core_->inbox_stopping) return;
    core_->inbox.push_back(std::move(events));
  }
  core_->inbox_cv.notify_one();
}

Result<std::unique_ptr<Watch>> WatchHub::watch(WatchOptions options) {
  if (!options.on_event) {
    return makeError(ErrorCode::BadRequest, "on_event", "a watch needs an event callback");
  }
  if (options.resource.empty()) {
    return makeError(ErrorCode::BadRequest, "resource", "a watch needs a resource");
  }
  auto w = std::make_shared<Watcher>();
  w->resource = std::move(options.resource);
  w->ns = std::move(options.ns);
  w->on_event = std::move(options.on_event);
  w->on_close = std::move(options.on_close);
  w->after = options.after_revision;
  w->limit = core_->options.max_pending_events;
  std::unique_ptr<Watch> handle = std::make_unique<HubWatch>(core_, w);

  Revision upto = 0;
  {
    std::lock_guard lock(core_->mu);
    if (core_->closed) return makeError(ErrorCode::Unavailable, "", "the store is closing");
    w->id = core_->next_id++;
    if (w->after < core_->ring_base) {
      // Older than the ring: read (after, published] from the log, then go live.
      w->replaying = true;
      upto = core_->published;
    } else {
      for (const auto& event : core_->ring) {
        if (event->revision() > w->after && w->matches(event->key())) {
          w->queue.push_back(event);
        }
      }
      w->limit = std::max(w->limit, w->queue.size() + core_->options.max_pending_events);
    }
    core_->registerWatcher(w);
  }

  if (w->replaying) {
    auto history = core_->history(w->resource, w->ns, w->after, upto);
    if (!history) return history.error();  // the handle unregisters the watcher
    std::deque<EventPtr> replay;
    for (auto& event : *history) {
      replay.push_back(std::make_shared<const WatchEvent>(std::move(event)));
    }
    std::lock_guard lock(w->mu);
    w->limit += replay.size();  // room for the whole replay on top of the usual bound
    replay.insert(replay.end(), w->queue.begin(), w->queue.end());
    w->queue = std::move(replay);
    w->replaying = false;
  }

  {
    std::lock_guard lock(w->mu);
    if (w->scheduled || (w->queue.empty() && !w->close_error)) return handle;
    w->scheduled = true;
  }
  core_->schedule({w});
  return handle;
}

void WatchHub::close() {
  {
    std::lock_guard lock(core_->inbox_mu);
    if (core_->inbox_stopping) return;
    core_->inbox_stopping = true;
  }
  core_->inbox_cv.notify_all();
  threads_.front().join();  // the fan-out thread drains the inbox first

  std::vector<std::shared_ptr<Watcher>> to_schedule;
  {
    std::lock_guard lock(core_->mu);
    core_->closed = true;
    for (auto& [resource, by_ns] : core_->index) {
      for (auto& [ns, watchers] : by_ns) {
        for (auto& [id, w] : watchers) {
          std::lock_guard wlock(w->mu);
          if (w->closed || w->cancelled || w->close_error) continue;
          w->close_error = makeError(ErrorCode::Unavailable, "", "the store is closing");
          if (!w->scheduled) {
            w->scheduled = true;
            to_schedule.push_back(w);
          }
        }
      }
    }
    core_->index.clear();
    core_->watcher_count = 0;
  }
  core_->schedule(std::move(to_schedule));
  {
    std::lock_guard lock(core_->ready_mu);
    core_->ready_stopping = true;
  }
  core_->ready_cv.notify_all();
  for (std::size_t i = 1; i < threads_.size(); ++i) threads_[i].join();
  threads_.clear();
}

std::size_t WatchHub::watcherCount() const {
  std::lock_guard lock(core_->mu);
  return core_->watcher_count;
}

}  // namespace troupe::apiserver
