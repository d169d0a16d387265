#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <latch>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "common/helper_pool.h"

using troupe::HelperPool;

TEST_CASE("a pool runs every call of a batch once, at most `width` at once",
          "[common][helper-pool]") {
  HelperPool pool(8, "test-help");
  std::vector<std::atomic<int>> calls(200);
  std::atomic<int> running{0}, most{0};
  pool.forEach(calls.size(), 4, [&](std::size_t i) {
    const int now = ++running;
    for (int seen = most.load(); now > seen && !most.compare_exchange_weak(seen, now);) {
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    ++calls[i];
    --running;
  });
  for (const auto& c : calls) CHECK(c.load() == 1);
  CHECK(most.load() <= 4);
  CHECK(most.load() >= 2);  // helpers did join the caller
  pool.forEach(0, 4, [&](std::size_t) { FAIL("no call for an empty batch"); });
}

TEST_CASE("a batch finishes on its caller's thread while every pool thread is busy",
          "[common][helper-pool]") {
  HelperPool pool(1, "test-help");
  std::latch release(1);
  std::atomic<int> entered{0};
  // The pool's only thread is held by another caller's batch (both of its calls, one on
  // the pool's thread and one on its caller's) until released.
  std::thread other([&] {
    pool.forEach(2, 2, [&](std::size_t) {
      ++entered;
      release.wait();
    });
  });
  while (entered.load() < 2) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::vector<int> done(50, 0);
  const auto me = std::this_thread::get_id();
  std::set<std::thread::id> ran_on;
  std::mutex mu;
  pool.forEach(done.size(), 8, [&](std::size_t i) {
    done[i] = 1;
    std::lock_guard lock(mu);
    ran_on.insert(std::this_thread::get_id());
  });
  for (int d : done) CHECK(d == 1);
  CHECK(ran_on == std::set<std::thread::id>{me});
  release.count_down();
  other.join();
}

TEST_CASE("many callers share the pool's threads and each gets all its calls done",
          "[common][helper-pool]") {
  HelperPool pool(6, "test-help");
  std::set<std::thread::id> threads;
  std::mutex mu;
  std::atomic<long> total{0};
  std::vector<std::thread> callers;
  for (int c = 0; c < 8; ++c)
    callers.emplace_back([&] {
      for (int b = 0; b < 100; ++b) {
        std::atomic<int> sum{0};
        pool.forEach(16, 16, [&](std::size_t i) {
          sum += static_cast<int>(i);
          std::lock_guard lock(mu);
          threads.insert(std::this_thread::get_id());
        });
        CHECK(sum.load() == 120);  // 0 + 1 + ... + 15, each index once
        total += sum.load();
      }
    });
  for (auto& t : callers) t.join();
  CHECK(total.load() == 8 * 100 * 120);
  // Only the callers and the pool's own threads ran calls. This bounds the threads seen
  // rather than counting threads started: an ended thread's id may be given to a new one.
  CHECK(threads.size() <= 8 + pool.size());
}
