#include "kube/event_recorder.h"

#include <algorithm>

#include "common/log.h"
#include "common/thread_name.h"
#include "kube/kube_client.h"
#include "kube/resource_type.h"

namespace troupe::kube {

EventRecorder::EventRecorder(KubeClient& client, std::string field_manager, std::size_t writers,
                             std::size_t capacity)
    : client_(client), field_manager_(std::move(field_manager)), capacity_(capacity) {
  for (std::size_t i = 0; i < std::max<std::size_t>(1, writers); ++i)
    writers_.emplace_back([this] {
      nameThisThread("op-events");
      writeLoop();
    });
}

EventRecorder::~EventRecorder() { stop(); }

void EventRecorder::record(nlohmann::json event) {
  {
    std::lock_guard lock(mu_);
    if (stopping_ || queue_.size() >= capacity_) {
      ++dropped_;
      return;
    }
    queue_.push_back(std::move(event));
  }
  ready_.notify_one();
}

void EventRecorder::stop() {
  {
    std::lock_guard lock(mu_);
    if (stopping_ && writers_.empty()) return;
    stopping_ = true;
  }
  ready_.notify_all();
  for (auto& w : writers_)
    if (w.joinable()) w.join();
  writers_.clear();
}

std::int64_t EventRecorder::dropped() const {
  std::lock_guard lock(mu_);
  return dropped_;
}

void EventRecorder::flush() {
  std::unique_lock lock(mu_);
  idle_.wait(lock, [&] { return queue_.empty() && in_flight_ == 0; });
}

void EventRecorder::writeLoop() {
  std::unique_lock lock(mu_);
  while (true) {
    ready_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    // Stopping still writes what was queued: a shutdown right after a preemption keeps
    // the event that names the preemptor.
    if (queue_.empty()) return;
    nlohmann::json event = std::move(queue_.front());
    queue_.pop_front();
    ++in_flight_;
    lock.unlock();
    const auto ns = event["metadata"].value("namespace", "");
    auto r = client_.create(resources::kEvents, ns, event, {field_manager_, false});
    if (!r)
      log::debug("event not recorded", {{"event", ns + "/" + event["metadata"].value("name", "")},
                                        {"error", r.error().describe()}});
    lock.lock();
    --in_flight_;
    if (queue_.empty() && in_flight_ == 0) idle_.notify_all();
  }
}

}  // namespace troupe::kube
