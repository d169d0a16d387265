#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>

// A work queue of object keys for controllers, as client-go's rate-limited workqueue:
//   - deduplicating: a key added while waiting is queued once; a key added while being
//     processed is queued again only after done(), so no two workers hold the same key;
//   - delayed adds (addAfter) and per-key exponential backoff (addRateLimited: base * 2^n,
//     capped) reset by forget();
//   - addFirst(): a key that goes ahead of every other ready key (a new object, whose
//     first reconcile is work a user waits for, before the bookkeeping of older ones);
//   - shutDown(): get() returns nullopt once the queue is empty, so workers drain and exit.
// Thread-safe; any number of workers may call get() at once. Time is the steady clock.
namespace troupe::kube {

class WorkQueue {
 public:
  using Clock = std::chrono::steady_clock;

  explicit WorkQueue(std::chrono::milliseconds base_delay = std::chrono::milliseconds(5),
                     std::chrono::milliseconds max_delay = std::chrono::seconds(1000));

  void add(const std::string& key);
  // Like add(), but handed out before every key added with add(); first come, first
  // served among themselves. A key already queued keeps its place.
  void addFirst(const std::string& key);
  void addAfter(const std::string& key, std::chrono::milliseconds delay);
  // addAfter with this key's next backoff delay; each call doubles it until forget().
  void addRateLimited(const std::string& key);
  // Clears the key's backoff (after a successful reconcile).
  void forget(const std::string& key);
  int numRequeues(const std::string& key) const;
  // The delay the next addRateLimited(key) would use.
  std::chrono::milliseconds nextDelay(const std::string& key) const;

  // Blocks until a key is ready; nullopt after shutDown() once nothing is left.
  std::optional<std::string> get();
  // Like get() but gives up at `timeout` (nullopt).
  std::optional<std::string> getFor(std::chrono::milliseconds timeout);
  // Marks the key returned by get() as finished; re-queues it if it was added meanwhile.
  void done(const std::string& key);

  void shutDown();
  bool shuttingDown() const;
  // Keys ready to be handed out (not the delayed ones, nor those being processed).
  std::size_t len() const;

 private:
  void addLocked(const std::string& key, bool first = false);
  void promoteDueLocked(Clock::time_point now);
  std::optional<std::string> getUntil(std::optional<Clock::time_point> deadline);
  std::chrono::milliseconds delayForLocked(int requeues) const;

  const std::chrono::milliseconds base_delay_;
  const std::chrono::milliseconds max_delay_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  // Invariant: every key in first_ or queue_ is in dirty_ and in only one of them; a key
  // in processing_ is in neither.
  std::deque<std::string> first_;
  std::deque<std::string> queue_;
  std::set<std::string> dirty_;       // queued or to be re-queued after done()
  std::set<std::string> processing_;  // handed out by get(), not yet done()
  // Delayed adds: ready time -> keys (ordered by time, then by insertion).
  std::multimap<Clock::time_point, std::string> waiting_;
  // Each delayed key's entry in waiting_: a key waits at most once, at its earliest time,
  // and finding it must not cost a scan when thousands of keys wait.
  std::map<std::string, std::multimap<Clock::time_point, std::string>::iterator> waiting_at_;
  std::map<std::string, int> requeues_;
  bool shutting_down_ = false;
};

}  // namespace troupe::kube
