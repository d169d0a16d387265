#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "apiserver/storage/object_store.h"

// Fans committed writes out to thousands of watchers without letting any of them slow
// the writer or each other.
//
//   writer --publish()--> inbox --fan-out thread--> per-watcher bounded queues
//                                                  --delivery threads--> on_event
//
// publish() only appends to the inbox. The fan-out thread makes each event's text once
// (the stored text with its resourceVersion; a reader that needs the object parses it,
// once for all readers), keeps the most recent events in a ring for cheap replays, and
// appends a shared pointer to the queue of every matching watcher. Delivery threads drain ready
// watchers round-robin, a bounded number of events per turn, so one slow callback holds one
// delivery thread for one turn at most. A watcher whose queue passes the bound is closed with
// ErrorCode::TooManyRequests; its client re-watches from the last revision it received.
namespace troupe::apiserver {

// A committed write as the writer hands it over. The object comes without
// metadata.resourceVersion, which the hub stamps: either already parsed (`object`, the
// caller's copy, so the hub's one thread parses nothing for creates and updates) or as
// the stored text (`value`, for deletes, whose last state comes from the log).
struct CommittedEvent {
  EventType type = EventType::Added;
  ObjectKey key;
  Revision revision = 0;
  std::string value;  // the stored text (encodeObject)
};

struct WatchHubOptions {
  // A watcher with more undelivered events than this is closed (TooManyRequests).
  std::size_t max_pending_events = 10000;
  // Recent events kept in memory (their text, and the parsed object once a reader asked
  // for it); watches from a revision inside this window replay from memory, older ones
  // from the log.
  std::size_t history_events = 2048;
  // Threads that run watcher callbacks.
  std::size_t delivery_threads = 4;
  // Events delivered to one watcher per turn before the next ready watcher gets its turn.
  std::size_t events_per_turn = 64;
};

class WatchHub {
 public:
  // Reads the events of `resource` (and `ns` when not empty) with revision in
  // (after, upto] from durable history, in revision order; ErrorCode::Gone when `after`
  // is older than the compacted revision.
  using HistoryReader = std::function<Result<std::vector<WatchEvent>>(
      const std::string& resource, const std::string& ns, Revision after, Revision upto)>;

  // `published` is the revision everything up to which is already durable: watches
  // start after it.
  WatchHub(WatchHubOptions options, HistoryReader history, Revision published);
  ~WatchHub();
  WatchHub(const WatchHub&) = delete;
  WatchHub& operator=(const WatchHub&) = delete;

  // Hands over the events of one committed transaction, in revision order, each
  // revision greater than every one published before. Never blocks on watchers.
  void publish(std::vector<CommittedEvent> events);

  // Starts a watch after options.after_revision (already resolved: never 0 here unless
  // the store is empty). Replays history first, then continues live, with no gap and
  // no duplicate at the boundary.
  Result<std::unique_ptr<Watch>> watch(WatchOptions options);

  // Closes every watcher with ErrorCode::Unavailable and stops the threads. Idempotent.
  void close();

  std::size_t watcherCount() const;

  struct Core;
  struct Watcher;

 private:
  std::shared_ptr<Core> core_;
  std::vector<std::thread> threads_;
};

}  // namespace troupe::apiserver
