#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

// Records Kubernetes Events without holding up the code that reports them. A scheduling
// cycle that admits hundreds of gangs reports an event for each; written in line, they
// took as long as the bindings themselves. Events are best effort, as client-go's event
// broadcaster treats them: beyond `capacity` queued events a new one is dropped and
// counted, and a failed write is logged at debug level, never retried.
namespace troupe::kube {

class KubeClient;

class EventRecorder {
 public:
  // Starts `writers` threads that create the queued events through `client`.
  EventRecorder(KubeClient& client, std::string field_manager, std::size_t writers = 4,
                std::size_t capacity = 10000);
  ~EventRecorder();  // stop()
  EventRecorder(const EventRecorder&) = delete;
  EventRecorder& operator=(const EventRecorder&) = delete;

  // Queues a complete core/v1 Event (metadata.namespace set); returns at once.
  void record(nlohmann::json event);
  // Writes what is queued, then stops the writers. Idempotent.
  void stop();

  std::int64_t dropped() const;
  // Blocks until nothing is queued or being written (tests, shutdown).
  void flush();

 private:
  void writeLoop();

  KubeClient& client_;
  const std::string field_manager_;
  const std::size_t capacity_;
  mutable std::mutex mu_;
  std::condition_variable ready_;  // an event was queued, or stopping
  std::condition_variable idle_;   // the queue emptied and no write is in flight
  std::deque<nlohmann::json> queue_;
  std::size_t in_flight_ = 0;
  std::int64_t dropped_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> writers_;
};

}  // namespace troupe::kube
