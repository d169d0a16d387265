#include "common/helper_pool.h"

#include <algorithm>

#include "common/thread_name.h"

namespace troupe {

HelperPool::HelperPool(std::size_t threads, std::string name) : name_(std::move(name)) {
  threads_.reserve(threads);
  for (std::size_t t = 0; t < threads; ++t) threads_.emplace_back([this] { loop(); });
}

HelperPool::~HelperPool() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  work_ready_.notify_all();
  for (auto& t : threads_) t.join();
}

void HelperPool::run(Batch& batch, std::size_t helpers) {
  helpers = std::min(helpers, threads_.size());
  if (helpers > 0) {
    {
      std::lock_guard lock(mu_);
      for (std::size_t h = 0; h < helpers; ++h) offers_.push_back(&batch);
    }
    // One wake-up per offer: waking every idle thread for each batch (160 of them, most
    // finding nothing left to take) cost a tenth of the machine's CPU in futex calls.
    for (std::size_t h = 0; h < helpers; ++h) work_ready_.notify_one();
  }
  batch.work();
  if (helpers == 0) return;
  // Every index is handed out. Withdraw the offers no thread took (the batch lives on the
  // caller's stack), then wait for the threads still running one of its calls: a thread
  // counts itself in under the lock before it takes an index, so none can start after.
  std::unique_lock lock(mu_);
  std::erase(offers_, &batch);
  batch.left.wait(lock, [&] { return batch.active == 0; });
}

void HelperPool::loop() {
  nameThisThread(name_);
  std::unique_lock lock(mu_);
  for (;;) {
    work_ready_.wait(lock, [&] { return stopping_ || !offers_.empty(); });
    if (stopping_) return;
    Batch* batch = offers_.front();
    offers_.pop_front();
    ++batch->active;
    lock.unlock();
    batch->work();
    lock.lock();
    // Notified under the lock: once it is released the caller may return and the batch,
    // on its stack, be gone.
    if (--batch->active == 0) batch->left.notify_one();
  }
}

}  // namespace troupe
