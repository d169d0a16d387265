#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

// Threads kept to help callers run batches of blocking work (the operator's API writes:
// a cycle's bindings, a reconcile's creates, status patches) several at once.
//
// Each batch used to start and join threads of its own: up to 127 for one cycle's bindings
// and one or more for nearly every reconcile, tens of thousands in a benchmark phase. A
// profile of the single-pod phase at 5,000 nodes put 5 to 8% of the machine's CPU in thread
// creation and exit and in the TLB flushes that freeing their stacks sends to every core.
//
// The caller always works on its own batch too, so a batch finishes even when every pool
// thread is busy with others; free threads join it, up to its width.
namespace troupe {

class HelperPool {
 public:
  HelperPool(std::size_t threads, std::string name);
  ~HelperPool();
  HelperPool(const HelperPool&) = delete;
  HelperPool& operator=(const HelperPool&) = delete;

  // Runs fn(i) for every i in [0, n), at most `width` at once (the caller and up to
  // width - 1 pool threads), and returns when all are done. fn must be safe to call from
  // several threads.
  template <typename Fn>
  void forEach(std::size_t n, std::size_t width, Fn&& fn) {
    if (n == 0) return;
    Batch batch{n, [&fn](std::size_t i) { fn(i); }};
    run(batch, std::min(std::max<std::size_t>(width, 1), n) - 1);
  }

  std::size_t size() const { return threads_.size(); }

 private:
  struct Batch {
    std::size_t n;
    std::function<void(std::size_t)> fn;
    std::atomic<std::size_t> next{0};
    std::size_t active = 0;  // pool threads working on it (under mu_)
    // Its caller waits here for `active` to reach 0. One per batch: with one for the pool,
    // every batch's end woke every caller waiting on any batch (the eight reconcile workers
    // and the scheduling thread), and all but one went back to sleep.
    std::condition_variable left;
    void work() {
      for (std::size_t i = next++; i < n; i = next++) fn(i);
    }
  };

  void run(Batch& batch, std::size_t helpers);
  void loop();

  std::mutex mu_;
  std::condition_variable work_ready_;
  std::deque<Batch*> offers_;  // one entry per pool thread a batch may still take
  bool stopping_ = false;
  std::string name_;
  std::vector<std::thread> threads_;
};

}  // namespace troupe
