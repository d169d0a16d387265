#include "kube/informer.h"

#include <set>

#include "common/log.h"
#include "common/thread_name.h"
#include "kube/backoff.h"
#include "kube/watch_stream.h"

namespace troupe::kube {
Informer::Informer(KubeClient& client, ResourceType type, std::string ns, InformerOptions options)
    : client_(client), type_(std::move(type)), ns_(std::move(ns)), options_(std::move(options)) {}

Informer::~Informer() { stop(); }

void Informer::addHandlers(InformerHandlers handlers) {
  TROUPE_CHECK(!thread_.joinable(), "handlers added to a running informer for {}",
               type_.qualifiedName());
  handlers_.push_back(std::move(handlers));
}

void Informer::addIndex(const std::string& name, IndexFunction function) {
  TROUPE_CHECK(!thread_.joinable(), "index {} added to a running informer", name);
  cache_.addIndex(name, std::move(function));
}

void Informer::start() {
  TROUPE_CHECK(!thread_.joinable(), "informer for {} started twice", type_.qualifiedName());
  thread_ = std::jthread([this](std::stop_token stop) {
    nameThisThread("inf-" + type_.resource);
    run(stop);
  });
}

void Informer::stop() {
  if (thread_.joinable()) {
    thread_.request_stop();
    thread_.join();
  }
}

bool Informer::waitForSync(std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mu_);
  return synced_cv_.wait_for(lock, timeout, [this] { return synced_.load(); });
}

std::string Informer::lastResourceVersion() const {
  std::lock_guard lock(mu_);
  return last_rv_;
}

ApiResult<std::string> Informer::relist() {
  ListOptions list_options;
  list_options.label_selector = options_.label_selector;
  list_options.field_selector = options_.field_selector;
  list_options.limit = options_.page_size;
  auto listed = listAll(client_, type_, ns_, list_options);
  if (!listed) return listed.error();
  const std::string rv = resourceVersionOf(*listed);

  std::set<std::string> seen;
  for (auto& item : (*listed)["items"]) {
    // List items carry no kind; the watch events' objects do. Keep the cache uniform.
    if (!item.contains("kind")) item["kind"] = type_.kind;
    if (!item.contains("apiVersion")) item["apiVersion"] = type_.apiVersion();
    auto object = std::make_shared<const nlohmann::json>(std::move(item));
    seen.insert(objectKey(*object));
    ObjectPtr previous = cache_.get(objectKey(*object));
    if (previous && resourceVersionOf(*previous) == resourceVersionOf(*object)) continue;
    cache_.upsert(object);
    for (const auto& h : handlers_) {
      if (previous && h.on_update) h.on_update(previous, object);
      if (!previous && h.on_add) h.on_add(object);
    }
  }
  for (const auto& key : cache_.keys()) {
    if (seen.count(key)) continue;
    ObjectPtr gone = cache_.erase(key);
    for (const auto& h : handlers_) {
      if (h.on_delete) h.on_delete(gone);
    }
  }
  return rv;
}

void Informer::apply(WatchEvent&& event) {
  if (event.type == WatchEventType::Bookmark) return;
  auto object = std::make_shared<const nlohmann::json>(std::move(event.object));
  if (event.type == WatchEventType::Deleted) {
    ObjectPtr previous = cache_.erase(objectKey(*object));
    for (const auto& h : handlers_) {
      if (h.on_delete) h.on_delete(object);
    }
    (void)previous;
    return;
  }
  ObjectPtr previous = cache_.upsert(object);
  for (const auto& h : handlers_) {
    if (previous && h.on_update) h.on_update(previous, object);
    if (!previous && h.on_add) h.on_add(object);
  }
}

void Informer::run(std::stop_token stop) {
  Backoff backoff(options_.retry_base, options_.retry_max, 7);
  int failures = 0;
  bool first_list = true;
  while (!stop.stop_requested()) {
    if (!first_list) relists_.fetch_add(1);
    auto rv = relist();
    if (!rv) {
      log::warn("informer list failed", {{"resource", type_.qualifiedName()},
                                         {"namespace", ns_},
                                         {"error", rv.error().describe()}});
      std::mutex m;
      std::condition_variable_any cv;
      std::unique_lock lock(m);
      cv.wait_for(lock, stop, backoff.delay(failures++, rv.error().retry_after),
                  [] { return false; });
      continue;
    }
    failures = 0;
    first_list = false;
    {
      std::lock_guard lock(mu_);
      last_rv_ = *rv;
      synced_.store(true);
    }
    synced_cv_.notify_all();

    WatchStream::Options watch_options;
    watch_options.watch.label_selector = options_.label_selector;
    watch_options.watch.field_selector = options_.field_selector;
    watch_options.watch.resource_version = *rv;
    watch_options.watch.timeout_seconds = options_.watch_timeout_seconds;
    watch_options.watch.allow_bookmarks = true;
    watch_options.retry_base = options_.retry_base;
    watch_options.retry_max = options_.retry_max;
    WatchStream watch(client_, type_, ns_, watch_options);
    auto ended = watch.run(
        [&](WatchEvent&& event) {
          const std::string event_rv = resourceVersionOf(event.object);
          apply(std::move(event));
          if (!event_rv.empty()) {
            std::lock_guard lock(mu_);
            last_rv_ = event_rv;
          }
        },
        stop);
    if (!ended && ended.error().isGone()) {
      log::info("watch expired; relisting", {{"resource", type_.qualifiedName()},
                                             {"namespace", ns_},
                                             {"resourceVersion", watch.resourceVersion()}});
      continue;
    }
  }
}

}  // namespace troupe::kube
