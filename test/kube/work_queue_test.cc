#include <catch2/catch.hpp>

#include <atomic>
#include <set>
#include <string>
#include <thread>

#include "kube/work_queue.h"

using namespace troupe::kube;
using std::chrono::milliseconds;

TEST_CASE("a key added twice while waiting is handed out once", "[kube][work-queue]") {
  WorkQueue queue;
  queue.add("ns/a");
  queue.add("ns/b");
  queue.add("ns/a");
  CHECK(queue.len() == 2);
  CHECK(queue.get() == "ns/a");
  CHECK(queue.get() == "ns/b");
  CHECK(queue.len() == 0);
}

TEST_CASE("a key added while being processed comes back only after done()", "[kube][work-queue]") {
  WorkQueue queue;
  queue.add("ns/a");
  REQUIRE(queue.get() == "ns/a");
  queue.add("ns/a");
  queue.add("ns/a");
  CHECK(queue.len() == 0);  // not handed to a second worker while the first holds it
  CHECK(queue.getFor(milliseconds(20)) == std::nullopt);
  queue.done("ns/a");
  CHECK(queue.len() == 1);
  CHECK(queue.get() == "ns/a");
  queue.done("ns/a");
  CHECK(queue.getFor(milliseconds(20)) == std::nullopt);
}

TEST_CASE("rate-limited adds back off exponentially per key until forget()", "[kube][work-queue]") {
  WorkQueue queue(milliseconds(5), milliseconds(40));
  // delays: 5, 10, 20, 40, 40 (capped)
  const std::vector<long long> want = {5, 10, 20, 40, 40};
  for (long long w : want) {
    CHECK(queue.nextDelay("ns/a").count() == w);
    queue.addRateLimited("ns/a");
  }
  CHECK(queue.numRequeues("ns/a") == 5);
  CHECK(queue.nextDelay("ns/b").count() == 5);  // per key
  queue.forget("ns/a");
  CHECK(queue.numRequeues("ns/a") == 0);
  CHECK(queue.nextDelay("ns/a").count() == 5);
}

TEST_CASE("delayed keys become ready at their time, earliest first", "[kube][work-queue]") {
  WorkQueue queue;
  const auto start = WorkQueue::Clock::now();
  queue.addAfter("late", milliseconds(120));
  queue.addAfter("early", milliseconds(40));
  CHECK(queue.len() == 0);
  CHECK(queue.get() == "early");
  CHECK(WorkQueue::Clock::now() - start >= milliseconds(40));
  CHECK(queue.get() == "late");
  CHECK(WorkQueue::Clock::now() - start >= milliseconds(120));
  // A later addAfter of a waiting key does not push it back.
  queue.done("early");
  queue.addAfter("k", milliseconds(30));
  queue.addAfter("k", milliseconds(5000));
  CHECK(queue.getFor(milliseconds(2000)) == "k");
}

TEST_CASE("an earlier addAfter brings a waiting key forward, and it is handed out once",
          "[kube][work-queue]") {
  WorkQueue queue;
  queue.addAfter("k", milliseconds(60'000));
  for (int i = 0; i < 1000; ++i) queue.addAfter("other-" + std::to_string(i), milliseconds(60'000));
  queue.addAfter("k", milliseconds(10));
  CHECK(queue.getFor(milliseconds(2000)) == "k");
  queue.done("k");
  // Nothing of k is left waiting: its minute-long entry went when it was brought forward.
  queue.addAfter("k", milliseconds(20));
  CHECK(queue.getFor(milliseconds(2000)) == "k");
  queue.done("k");
  CHECK_FALSE(queue.getFor(milliseconds(100)).has_value());
}

TEST_CASE("shutDown lets workers drain what is queued, then get() returns nothing",
          "[kube][work-queue]") {
  WorkQueue queue;
  queue.add("a");
  queue.addAfter("never", milliseconds(10'000));
  queue.shutDown();
  queue.add("ignored");
  CHECK(queue.shuttingDown());
  CHECK(queue.get() == "a");
  CHECK(queue.get() == std::nullopt);
}

TEST_CASE("concurrent workers never hold the same key at once", "[kube][work-queue]") {
  WorkQueue queue;
  std::mutex mu;
  std::set<std::string> held;
  std::atomic<int> overlaps{0};
  std::atomic<int> processed{0};
  std::vector<std::thread> workers;
  for (int w = 0; w < 4; ++w) {
    workers.emplace_back([&] {
      while (auto key = queue.get()) {
        {
          std::lock_guard lock(mu);
          if (!held.insert(*key).second) ++overlaps;
        }
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        {
          std::lock_guard lock(mu);
          held.erase(*key);
        }
        ++processed;
        queue.done(*key);
      }
    });
  }
  for (int i = 0; i < 400; ++i) queue.add("key-" + std::to_string(i % 8));
  // Wait until everything queued has been processed, then stop the workers.
  while (queue.len() > 0) std::this_thread::sleep_for(milliseconds(1));
  std::this_thread::sleep_for(milliseconds(20));
  queue.shutDown();
  for (auto& t : workers) t.join();
  CHECK(overlaps == 0);
  CHECK(processed >= 8);
  CHECK(processed <= 400);
}

TEST_CASE("keys added first go ahead of the others, and a queued key keeps its place",
          "[kube][work-queue]") {
  WorkQueue queue;
  queue.add("job/old-1");
  queue.add("job/old-2");
  queue.addFirst("job/new-1");
  queue.addFirst("job/old-2");  // already queued: neither moved nor doubled
  queue.addFirst("job/new-2");
  CHECK(queue.len() == 4);
  CHECK(queue.get() == "job/new-1");
  CHECK(queue.get() == "job/new-2");
  CHECK(queue.get() == "job/old-1");
  CHECK(queue.get() == "job/old-2");
  // A key added first while a worker holds it is not handed to a second worker.
  queue.addFirst("job/new-1");
  CHECK(queue.getFor(milliseconds(20)) == std::nullopt);
  queue.done("job/new-1");
  CHECK(queue.get() == "job/new-1");
}
