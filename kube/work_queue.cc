#include "kube/work_queue.h"

#include <algorithm>

namespace troupe::kube {

WorkQueue::WorkQueue(std::chrono::milliseconds base_delay, std::chrono::milliseconds max_delay)
    : base_delay_(base_delay), max_delay_(std::max(base_delay, max_delay)) {}

void WorkQueue::addLocked(const std::string& key, bool first) {
  if (shutting_down_ || dirty_.count(key)) return;
  dirty_.insert(key);
  if (processing_.count(key)) return;  // done() re-queues it
  (first ? first_ : queue_).push_back(key);
  cv_.notify_one();
}

void WorkQueue::add(const std::string& key) {
  std::lock_guard lock(mu_);
  addLocked(key);
}

void WorkQueue::addFirst(const std::string& key) {
  std::lock_guard lock(mu_);
  addLocked(key, true);
}

void WorkQueue::addAfter(const std::string& key, std::chrono::milliseconds delay) {
  std::lock_guard lock(mu_);
  if (shutting_down_) return;
  if (delay.count() <= 0) {
    addLocked(key);
    return;
  }
  // Keep only the earliest pending time for a key, as client-go does.
  const auto when = Clock::now() + delay;
  if (auto at = waiting_at_.find(key); at != waiting_at_.end()) {
    if (at->second->first <= when) return;
    waiting_.erase(at->second);
    waiting_at_.erase(at);
  }
  waiting_at_.emplace(key, waiting_.emplace(when, key));
  cv_.notify_all();  // a sleeping get() may now have an earlier wake-up
}

std::chrono::milliseconds WorkQueue::delayForLocked(int requeues) const {
  long long delay = base_delay_.count();
  for (int i = 0; i < requeues && delay < max_delay_.count(); ++i) delay *= 2;
  return std::chrono::milliseconds(std::min<long long>(delay, max_delay_.count()));
}

void WorkQueue::addRateLimited(const std::string& key) {
  std::chrono::milliseconds delay;
  {
    std::lock_guard lock(mu_);
    delay = delayForLocked(requeues_[key]++);
  }
  addAfter(key, delay);
}

void WorkQueue::forget(const std::string& key) {
  std::lock_guard lock(mu_);
  requeues_.erase(key);
}

int WorkQueue::numRequeues(const std::string& key) const {
  std::lock_guard lock(mu_);
  auto it = requeues_.find(key);
  return it == requeues_.end() ? 0 : it->second;
}

std::chrono::milliseconds WorkQueue::nextDelay(const std::string& key) const {
  std::lock_guard lock(mu_);
  auto it = requeues_.find(key);
  return delayForLocked(it == requeues_.end() ? 0 : it->second);
}

void WorkQueue::promoteDueLocked(Clock::time_point now) {
  while (!waiting_.empty() && waiting_.begin()->first <= now) {
    std::string key = waiting_.begin()->second;
    waiting_at_.erase(key);
    waiting_.erase(waiting_.begin());
    addLocked(key);
  }
}

std::optional<std::string> WorkQueue::getUntil(std::optional<Clock::time_point> deadline) {
  std::unique_lock lock(mu_);
  for (;;) {
    promoteDueLocked(Clock::now());
    if (!first_.empty() || !queue_.empty()) {
      auto& from = !first_.empty() ? first_ : queue_;
      std::string key = std::move(from.front());
      from.pop_front();
      dirty_.erase(key);
      processing_.insert(key);
      return key;
    }
    if (shutting_down_) return std::nullopt;
    std::optional<Clock::time_point> wake = deadline;
    if (!waiting_.empty() && (!wake || waiting_.begin()->first < *wake)) {
      wake = waiting_.begin()->first;
    }
    if (wake) {
      if (deadline && Clock::now() >= *deadline) return std::nullopt;
      cv_.wait_until(lock, *wake);
    } else {
      cv_.wait(lock);
    }
  }
}

std::optional<std::string> WorkQueue::get() { return getUntil(std::nullopt); }

std::optional<std::string> WorkQueue::getFor(std::chrono::milliseconds timeout) {
  return getUntil(Clock::now() + timeout);
}

void WorkQueue::done(const std::string& key) {
  std::lock_guard lock(mu_);
  processing_.erase(key);
  if (dirty_.count(key)) {
    queue_.push_back(key);
    cv_.notify_one();
  }
}

void WorkQueue::shutDown() {
  std::lock_guard lock(mu_);
  shutting_down_ = true;
  waiting_.clear();
  waiting_at_.clear();
  cv_.notify_all();
}

bool WorkQueue::shuttingDown() const {
  std::lock_guard lock(mu_);
  return shutting_down_;
}

std::size_t WorkQueue::len() const {
  std::lock_guard lock(mu_);
  return first_.size() + queue_.size();
}

}  // namespace troupe::kube
