#include <catch2/catch.hpp>

#include <atomic>
#include <map>
#include <random>
#include <thread>
#include <vector>

#include "apiserver/storage/sqlite_object_store.h"
#include "test/storage/event_collector.h"
#include "test/storage/store_fixture.h"

namespace troupe::apiserver {
namespace {

using testing::EventCollector;
using testing::openStore;
using testing::pod;
using testing::podKey;
using testing::TempDir;
using testing::testOptions;

std::vector<Revision> range(Revision from, Revision to) {
  std::vector<Revision> out;
  for (Revision r = from; r <= to; ++r) out.push_back(r);
  return out;
}

TEST_CASE("a watch delivers creates, updates and deletes in order, for its resource and namespace",
          "[storage][watch]") {
  TempDir dir;
  auto store = openStore(testOptions(dir.path()));
  EventCollector in_a, everywhere, nodes;
  auto w1 = store->watch(in_a.options("pods", "a", 0));
  auto w2 = store->watch(everywhere.options("pods", "", 0));
  auto w3 = store->watch(nodes.options("nodes", "", 0));
  REQUIRE(w1.ok());
  REQUIRE(w2.ok());
  REQUIRE(w3.ok());

  REQUIRE(store->create(podKey("a", "p"), pod("a", "p", 1)).ok());                      // 1
  REQUIRE(store->create(podKey("b", "p"), pod("b", "p", 1)).ok());                      // 2
  REQUIRE(store->update(podKey("a", "p"), pod("a", "p", 2), std::nullopt).ok());        // 3
  REQUIRE(store->remove(podKey("a", "p"), std::nullopt).ok());                          // 4
  REQUIRE(store->create(ObjectKey{"nodes", "", "n1"}, nlohmann::json::object()).ok());  // 5

  REQUIRE(in_a.waitFor(3));
  REQUIRE(everywhere.waitFor(4));
  REQUIRE(nodes.waitFor(1));
  auto events = in_a.events();
  REQUIRE(events.size() == 3);
  CHECK(events[0].type() == EventType::Added);
  CHECK(events[1].type() == EventType::Modified);
  CHECK(events[1].object()["spec"]["value"] == 2);
  CHECK(events[2].type() == EventType::Deleted);
  // The deleted object's last state, stamped with the deleting revision.
  CHECK(events[2].object()["spec"]["value"] == 2);
  CHECK(events[2].object()["metadata"]["resourceVersion"] == "4");
  CHECK(in_a.revisions() == std::vector<Revision>{1, 3, 4});
  CHECK(everywhere.revisions() == std::vector<Revision>{1, 2, 3, 4});
  CHECK(nodes.revisions() == std::vector<Revision>{5});
}

TEST_CASE("a watch from a past revision replays history, then continues live", "[storage][watch]") {
  struct Case {
    std::string name;
    std::size_t history_events;  // the in-memory ring
  };
  std::vector<Case> cases = {
      {"replayed from memory", 2048},
      {"replayed from the log when memory has moved on", 2},
  };
  for (auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      TempDir dir;
      auto options = testOptions(dir.path());
      options.watch.history_events = tc.history_events;
      auto store = openStore(options);
      for (int i = 1; i <= 10; ++i) {
        auto name = fmt::format("p{}", i);
        REQUIRE(store->create(podKey(i % 2 ? "odd" : "even", name), pod("", name, i)).ok());
      }
      EventCollector odd;
      auto w = store->watch(odd.options("pods", "odd", 4));
      REQUIRE(w.ok());
      REQUIRE(store->create(podKey("odd", "p11"), pod("odd", "p11")).ok());
      REQUIRE(store->create(podKey("even", "p12"), pod("even", "p12")).ok());
      REQUIRE(store->create(podKey("odd", "p13"), pod("odd", "p13")).ok());
      REQUIRE(odd.waitFor(5));
      // odd revisions after 4: 5, 7, 9 from history; 11, 13 live.
      CHECK(odd.revisions() == std::vector<Revision>{5, 7, 9, 11, 13});
      CHECK(odd.events()[0].object()["metadata"]["resourceVersion"] == "5");
    }
  }
}

TEST_CASE("a watch resumes from a revision after the store restarts", "[storage][watch]") {
  TempDir dir;
  {
    auto store = openStore(testOptions(dir.path()));
    for (int i = 1; i <= 6; ++i) {
      REQUIRE(store->create(podKey("ns", fmt::format("p{}", i)), pod("ns", "p", i)).ok());
    }
    REQUIRE(store->remove(podKey("ns", "p2"), std::nullopt).ok());  // 7
  }
  auto store = openStore(testOptions(dir.path()));
  EventCollector collector;
  auto w = store->watch(collector.options("pods", "ns", 3));
  REQUIRE(w.ok());
  REQUIRE(store->create(podKey("ns", "p8"), pod("ns", "p8")).ok());  // 8
  REQUIRE(collector.waitFor(5));
  CHECK(collector.revisions() == std::vector<Revision>{4, 5, 6, 7, 8});
  CHECK(collector.events()[3].type() == EventType::Deleted);
}

TEST_CASE("a watch from revision 0 starts from now", "[storage][watch]") {
  TempDir dir;
  auto store = openStore(testOptions(dir.path()));
  REQUIRE(store->create(podKey("ns", "old"), pod("ns", "old")).ok());
  EventCollector collector;
  auto w = store->watch(collector.options("pods", "", 0));
  REQUIRE(w.ok());
  REQUIRE(store->create(podKey("ns", "new"), pod("ns", "new")).ok());
  REQUIRE(collector.waitFor(1));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK(collector.revisions() == std::vector<Revision>{2});
}

TEST_CASE("watches started during writes see every event once, with no gap at the boundary",
          "[storage][watch][concurrency]") {
  TempDir dir;
  auto options = testOptions(dir.path());
  options.watch.history_events = 16;  // some replays come from memory, most from the log
  auto store = openStore(options);
  const int kWriters = 4;
  const int kWritesPerWriter = 150 * testing::testScale();

  // Writers wait for the watch starter now and then, so that watches start all along the
  // write sequence however fast the disk is.
  std::atomic<int> watches_started{0};
  std::vector<std::thread> writers;
  for (int t = 0; t < kWriters; ++t) {
    writers.emplace_back([&, t] {
      for (int i = 0; i < kWritesPerWriter; ++i) {
        auto patience = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        while (watches_started < i / 10 && std::chrono::steady_clock::now() < patience) {
          std::this_thread::sleep_for(std::chrono::microseconds(200));
        }
        auto name = fmt::format("w{}-{}", t, i % 10);
        auto ns = fmt::format("ns{}", t % 2);
        if (i < 10) {
          REQUIRE(store->create(podKey(ns, name), pod(ns, name, i)).ok());
        } else {
          REQUIRE(store->update(podKey(ns, name), pod(ns, name, i), std::nullopt).ok());
        }
      }
    });
  }
  std::mt19937 rng(42);
  struct Started {
    std::string ns;
    Revision after;
    std::unique_ptr<EventCollector> collector;
    std::unique_ptr<Watch> watch;
  };
  std::vector<Started> watches;
  while (store->currentRevision() < kWriters * kWritesPerWriter - 50) {
    Revision now = store->currentRevision();
    Revision after = now - static_cast<Revision>(rng() % 40);
    if (after < 1) after = 1;
    Started s{rng() % 3 == 0 ? "" : fmt::format("ns{}", rng() % 2), after,
              std::make_unique<EventCollector>(), nullptr};
    auto w = store->watch(s.collector->options("pods", s.ns, s.after));
    REQUIRE(w.ok());
    s.watch = std::move(w).value();
    watches.push_back(std::move(s));
    ++watches_started;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  for (auto& t : writers) t.join();
  const Revision last = store->currentRevision();
  REQUIRE(last == kWriters * kWritesPerWriter);

  // What each watch should have seen: every event of its namespace after its start. The
  // full history, replayed from revision 1, says which namespace each revision wrote.
  std::map<Revision, std::string> ns_of;
  auto listed_history = [&] {
    EventCollector history;
    auto w = store->watch(history.options("pods", "", 1));
    REQUIRE(w.ok());
    REQUIRE(history.waitFor(static_cast<std::size_t>(last - 1)));
    return history.events();
  }();
  for (auto& e : listed_history) ns_of[e.revision()] = e.key().ns;

  INFO("watches started: " << watches.size());
  REQUIRE(watches.size() > 10);
  for (auto& s : watches) {
    std::vector<Revision> want;
    for (Revision r = s.after + 1; r <= last; ++r) {
      if (s.ns.empty() || ns_of[r] == s.ns) want.push_back(r);
    }
    REQUIRE(s.collector->waitFor(want.size()));
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    INFO("watch of ns '" << s.ns << "' after " << s.after);
    CHECK(s.collector->revisions() == want);
    CHECK(s.collector->closes() == 0);
  }
}

TEST_CASE("two thousand watchers across resources and namespaces each get exactly their events",
          "[storage][watch][scale]") {
  TempDir dir;
  auto store = openStore(testOptions(dir.path()));
  const std::vector<std::string> resources = {"pods", "nodes", "leases.coordination.k8s.io",
                                              "trainingjobs.troupe.dev"};
  const int kNamespaces = 10;
  const int kWatchers = 2000;
  std::vector<std::unique_ptr<EventCollector>> collectors;
  std::vector<std::unique_ptr<Watch>> watches;
  std::vector<std::pair<std::string, std::string>> scopes;  // (resource, ns)
  for (int i = 0; i < kWatchers; ++i) {
    const auto& resource = resources[static_cast<std::size_t>(i) % resources.size()];
    // Every 11th watches all namespaces.
    std::string ns = i % 11 == 0 ? "" : fmt::format("ns{}", i % kNamespaces);
    collectors.push_back(std::make_unique<EventCollector>());
    auto w = store->watch(collectors.back()->options(resource, ns, 0));
    REQUIRE(w.ok());
    watches.push_back(std::move(w).value());
    scopes.emplace_back(resource, ns);
  }
  CHECK(store->watcherCount() == static_cast<std::size_t>(kWatchers));

  // 4 resources x 10 namespaces x 3 objects = 120 creates, written by 8 threads.
  std::vector<std::thread> writers;
  for (int t = 0; t < 8; ++t) {
    writers.emplace_back([&, t] {
      for (int i = t; i < 120; i += 8) {
        const auto& resource = resources[static_cast<std::size_t>(i) % resources.size()];
        auto ns = fmt::format("ns{}", (i / 4) % kNamespaces);
        REQUIRE(store->create(ObjectKey{resource, ns, fmt::format("o{}", i)}, pod(ns, "o")).ok());
      }
    });
  }
  for (auto& t : writers) t.join();
  // Each (resource, ns) got 120 / 40 = 3 objects; an all-namespace watch sees 30.
  for (int i = 0; i < kWatchers; ++i) {
    std::size_t want = scopes[static_cast<std::size_t>(i)].second.empty() ? 30 : 3;
    REQUIRE(collectors[static_cast<std::size_t>(i)]->waitFor(want));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  for (int i = 0; i < kWatchers; ++i) {
    auto& c = *collectors[static_cast<std::size_t>(i)];
    auto& [resource, ns] = scopes[static_cast<std::size_t>(i)];
    auto revisions = c.revisions();
    CHECK(std::is_sorted(revisions.begin(), revisions.end()));
    CHECK(revisions.size() == (ns.empty() ? 30u : 3u));
    for (auto& e : c.events()) {
      CHECK(e.key().resource == resource);
      if (!ns.empty()) CHECK(e.key().ns == ns);
    }
  }
  watches.clear();
  CHECK(store->watcherCount() == 0);
}

TEST_CASE("a slow watcher is closed when it falls behind, without holding back the others",
          "[storage][watch][isolation]") {
  TempDir dir;
  auto options = testOptions(dir.path());
  // The fast watcher must never be this far behind, even on a loaded machine under a
  // sanitizer: at most 8 writes are in flight at once, so a commit adds at most 8 events.
  options.watch.max_pending_events = 100;
  options.watch.delivery_threads = 2;
  options.watch.events_per_turn = 4;
  auto store = openStore(options);

  // The slow watcher's callback blocks (a client that stopped reading) until released.
  std::mutex slow_mu;
  std::condition_variable slow_cv;
  bool released = false;
  std::vector<Revision> slow_seen;
  std::optional<Error> slow_error;
  int slow_closes = 0;
  WatchOptions slow_options;
  slow_options.resource = "pods";
  slow_options.on_event = [&](const WatchEvent& e) {
    std::unique_lock lock(slow_mu);
    slow_cv.wait(lock, [&] { return released; });
    slow_seen.push_back(e.revision());
  };
  slow_options.on_close = [&](const Error& error) {
    std::lock_guard lock(slow_mu);
    slow_error = error;
    ++slow_closes;
    slow_cv.notify_all();
  };
  auto slow = store->watch(std::move(slow_options));
  // Whatever fails below, the slow callback is released before the watch is destroyed
  // (destroying a watch waits for its callback), so a failure reports instead of hanging.
  struct Release {
    std::mutex& mu;
    std::condition_variable& cv;
    bool& released;
    ~Release() {
      std::lock_guard lock(mu);
      released = true;
      cv.notify_all();
    }
  } release_on_exit{slow_mu, slow_cv, released};
  EventCollector fast;
  auto quick = store->watch(fast.options("pods", "", 0));
  REQUIRE(slow.ok());
  REQUIRE(quick.ok());

  // 400 writes from 8 threads while the slow watcher is stuck on its first event: the
  // writes complete and the fast watcher gets all of them.
  const int kWrites = 400;
  std::vector<std::thread> writers;
  for (int t = 0; t < 8; ++t) {
    writers.emplace_back([&, t] {
      for (int i = t; i < kWrites; i += 8) {
        REQUIRE(store->create(podKey("ns", fmt::format("p{}", i)), pod("ns", "p", i)).ok());
      }
    });
  }
  for (auto& t : writers) t.join();
  REQUIRE(fast.waitFor(kWrites));
  CHECK(fast.revisions() == range(1, kWrites));
  CHECK(fast.closes() == 0);

  std::vector<Revision> seen;
  {
    std::unique_lock lock(slow_mu);
    released = true;
    slow_cv.notify_all();
    REQUIRE(slow_cv.wait_for(lock, std::chrono::seconds(20), [&] { return slow_closes > 0; }));
    CHECK(slow_closes == 1);
    REQUIRE(slow_error);
    CHECK(slow_error->code == ErrorCode::TooManyRequests);
    seen = slow_seen;
  }
  // It had room for 100 queued events plus the turn in hand (4), far fewer than 400. What
  // it got before the close is a gap-free prefix; re-watching from its last revision
  // delivers the rest, as a client would.
  REQUIRE(!seen.empty());
  REQUIRE(seen.size() <= 104u);
  CHECK(seen == range(1, static_cast<Revision>(seen.size())));
  EventCollector rest;
  auto again = store->watch(rest.options("pods", "", seen.back()));
  REQUIRE(again.ok());
  REQUIRE(rest.waitFor(static_cast<std::size_t>(kWrites - seen.back())));
  CHECK(rest.revisions() == range(seen.back() + 1, kWrites));
}

TEST_CASE("destroying a watch stops its callbacks, and closing the store closes the rest",
          "[storage][watch]") {
  TempDir dir;
  auto store = openStore(testOptions(dir.path()));
  EventCollector stopped, open;
  auto w1 = store->watch(stopped.options("pods", "", 0));
  auto w2 = store->watch(open.options("pods", "", 0));
  REQUIRE(w1.ok());
  REQUIRE(w2.ok());
  REQUIRE(store->create(podKey("ns", "a"), pod("ns", "a")).ok());
  REQUIRE(stopped.waitFor(1));
  w1.value().reset();
  REQUIRE(store->create(podKey("ns", "b"), pod("ns", "b")).ok());
  REQUIRE(open.waitFor(2));
  store->close();
  REQUIRE(open.waitForClose());
  CHECK(open.closeError()->code == ErrorCode::Unavailable);
  CHECK(stopped.size() == 1);
  CHECK(stopped.closes() == 0);
  auto after_close = store->create(podKey("ns", "c"), pod("ns", "c"));
  REQUIRE_FALSE(after_close.ok());
  CHECK(after_close.error().code == ErrorCode::Unavailable);
}

TEST_CASE("a callback may end its own watch", "[storage][watch]") {
  TempDir dir;
  auto store = openStore(testOptions(dir.path()));
  std::mutex mu;
  std::condition_variable cv;
  std::unique_ptr<Watch> self;
  int calls = 0;
  WatchOptions options;
  options.resource = "pods";
  options.on_event = [&](const WatchEvent&) {
    std::lock_guard lock(mu);
    ++calls;
    self.reset();  // destroys the Watch from its own delivery thread
    cv.notify_all();
  };
  {
    auto w = store->watch(std::move(options));
    REQUIRE(w.ok());
    std::lock_guard lock(mu);
    self = std::move(w).value();
  }
  REQUIRE(store->create(podKey("ns", "a"), pod("ns", "a")).ok());
  REQUIRE(store->create(podKey("ns", "b"), pod("ns", "b")).ok());
  std::unique_lock lock(mu);
  REQUIRE(cv.wait_for(lock, std::chrono::seconds(10), [&] { return calls > 0; }));
  lock.unlock();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  lock.lock();
  CHECK(calls == 1);
  CHECK(store->watcherCount() == 0);
}

TEST_CASE("a watch without a callback or a resource is refused", "[storage][watch]") {
  TempDir dir;
  auto store = openStore(testOptions(dir.path()));
  auto no_callback = store->watch(WatchOptions{.resource = "pods"});
  REQUIRE_FALSE(no_callback.ok());
  CHECK(no_callback.error().field_path == "on_event");
  auto no_resource = store->watch(WatchOptions{.on_event = [](const WatchEvent&) {}});
  REQUIRE_FALSE(no_resource.ok());
  CHECK(no_resource.error().field_path == "resource");
}

}  // namespace
}  // namespace troupe::apiserver
