#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "kube/kube_client.h"
#include "kube/object_cache.h"

// List + watch of one resource into an ObjectCache, with handlers, as client-go's
// SharedInformer:
//   1. list every page (ListOptions.limit), fill the cache, call handlers for the
//      difference with what the cache held (adds, updates, deletes), mark synced;
//   2. watch from the list's resourceVersion (WatchStream: resumes across timeouts and
//      drops from the last version seen, bookmarks included), applying each event to the
//      cache and then calling its handler;
//   3. when the watch reports 410 Gone, go back to 1 (a relist).
// Handlers run on the informer's own thread, one at a time, in event order; they must not
// block for long. The cache is safe to read from any thread at any time.
namespace troupe::kube {

struct InformerHandlers {
  std::function<void(const ObjectPtr&)> on_add;
  std::function<void(const ObjectPtr& old_object, const ObjectPtr& new_object)> on_update;
  std::function<void(const ObjectPtr&)> on_delete;  // the object's last known state
};

struct InformerOptions {
  std::string label_selector;
  std::string field_selector;
  std::int64_t page_size = 500;
  std::int64_t watch_timeout_seconds = 300;
  std::chrono::milliseconds retry_base{100};
  std::chrono::milliseconds retry_max{5000};
};

class Informer {
 public:
  Informer(KubeClient& client, ResourceType type, std::string ns, InformerOptions options = {});
  ~Informer();  // stops
  Informer(const Informer&) = delete;
  Informer& operator=(const Informer&) = delete;

  // Before start(): handlers and indexes.
  void addHandlers(InformerHandlers handlers);
  void addIndex(const std::string& name, IndexFunction function);

  void start();
  void stop();  // waits for the thread; no handler runs after it returns

  const ObjectCache& cache() const { return cache_; }
  // True once the first list is in the cache (and handlers have seen it).
  bool hasSynced() const { return synced_.load(); }
  bool waitForSync(std::chrono::milliseconds timeout) const;
  // Lists done after the first (each one follows a 410).
  int relists() const { return relists_.load(); }
  // The version the watch would resume from.
  std::string lastResourceVersion() const;

 private:
  void run(std::stop_token stop);
  // Lists everything and reconciles the cache; returns the list's resourceVersion.
  ApiResult<std::string> relist();
  void apply(WatchEvent&& event);

  KubeClient& client_;
  const ResourceType type_;
  const std::string ns_;
  const InformerOptions options_;
  ObjectCache cache_;
  std::vector<InformerHandlers> handlers_;  // fixed once started
  std::atomic<bool> synced_{false};
  std::atomic<int> relists_{0};
  mutable std::mutex mu_;
  mutable std::condition_variable synced_cv_;
  std::string last_rv_;  // guarded by mu_
  std::jthread thread_;
};

}  // namespace troupe::kube
