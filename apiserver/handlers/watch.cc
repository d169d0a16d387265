#include "apiserver/handlers/watch.h"

#include <atomic>
#include <optional>
#include <string>
#include <unordered_set>

#include "apiserver/handlers/json_response.h"
#include "apiserver/handlers/list_query.h"
#include "apiserver/handlers/table.h"
#include "apiserver/objects/object_meta.h"
#include "apiserver/objects/object_service.h"
#include "common/check.h"
#include "common/json_member.h"
#include "common/log.h"
#include "common/thread_name.h"

namespace troupe::apiserver {

namespace {
using json = nlohmann::json;
constexpr auto kBookmarkEvery = std::chrono::seconds(60);
const char* typeName(EventType t) {
  switch (t) {
    case EventType::Added: return "ADDED";
    case EventType::Modified: return "MODIFIED";
    case EventType::Deleted: return "DELETED";
  }
  return "ERROR";
}
// How a selector watch remembers an object it reported: "namespace/name".
std::string presenceKey(const json& object) {
  return metaString(object, "namespace") + "/" + metaString(object, "name");
}
}  // namespace

class WatchStream final : public http::ResponseStream,
                          public std::enable_shared_from_this<WatchStream> {
 public:
  WatchStream(ApiContext& context, ResourceKind kind, std::string ns, ListFilter filter,
              Representation representation, bool bookmarks, Revision after,
              std::vector<StoredObject> initial, std::optional<std::chrono::seconds> timeout,
              std::optional<ApiError> gone,
              std::optional<std::unordered_set<std::string>> present = std::nullopt)
      : context_(context),
        kind_(std::move(kind)),
        ns_(std::move(ns)),
        filter_(std::move(filter)),
        representation_(representation),
        bookmarks_(bookmarks),
        after_(after),
        last_revision_(after),
        initial_(std::move(initial)),
        gone_(std::move(gone)),
        present_(std::move(present)) {
    auto now = std::chrono::steady_clock::now();
    if (timeout) deadline_ = now + *timeout;
    next_bookmark_ = now + kBookmarkEvery;
  }

  void start(std::shared_ptr<http::StreamSink> sink) override {
    {
      std::lock_guard lock(mu_);
      sink_ = sink;
    }
    if (gone_) {
      sink->push(json({{"type", "ERROR"}, {"object", gone_->status}}).dump() + "\n");
      sink->finish();
      return;
    }
    for (const auto& item : initial_)
      send(EventType::Added, item.revision, item.text,
           [&item]() -> const json& { return item.object; });
    initial_.clear();
    WatchOptions options;
    options.resource = kind_.storageName();
    options.ns = kind_.namespaced ? ns_ : "";
    options.after_revision = after_;
    std::weak_ptr<WatchStream> weak = weak_from_this();
    options.on_event = [weak](const WatchEvent& event) {
      if (auto self = weak.lock())
        self->send(event.type(), event.revision(), event.text(),
                   [&event]() -> const json& { return event.object(); });
    };
    options.on_close = [weak](const Error& error) {
      if (auto self = weak.lock()) self->closeWith(error);
    };
    auto watch = context_.objects.store().watch(std::move(options));
    if (!watch) {
      closeWith(watch.error());
      return;
    }
    std::lock_guard lock(mu_);
    if (stopped_) return;  // stop() ran meanwhile; the watch is dropped here
    watch_ = std::move(watch.value());
  }

  void stop() override {
    std::unique_ptr<Watch> watch;
    {
      std::lock_guard lock(mu_);
      stopped_ = true;
      watch = std::move(watch_);
      sink_.reset();
    }
    watch.reset();  // outside the lock: the store may be delivering an event right now
  }

  // Called once a second by the ticker. Returns false once the stream is over.
  bool tick(std::chrono::steady_clock::time_point now) {
    std::shared_ptr<http::StreamSink> sink;
    {
      std::lock_guard lock(mu_);
      if (stopped_) return false;
      sink = sink_;
    }
    if (!sink) return true;  // not started yet
    if (deadline_ && now >= *deadline_) {
      if (bookmarks_ && !sent_final_bookmark_) sendBookmark(*sink);
      sink->finish();
      return false;
    }
    bool near_deadline =
        deadline_ && *deadline_ - now <= std::chrono::seconds(2) && !sent_final_bookmark_;
    if (bookmarks_ && (now >= next_bookmark_ || near_deadline)) {
      if (near_deadline) sent_final_bookmark_ = true;
      next_bookmark_ = now + kBookmarkEvery;
      sendBookmark(*sink);
    }
    return true;
  }

 private:
  // `object` gives the object (a store event parses its text only when called); `text` is
  // the object as dump() writes it, when the store had it (else empty). A stream without
  // selectors that sends plain objects needs only the text.
  template <typename ObjectOf>
  void send(EventType type, Revision revision, const std::string& text, const ObjectOf& object) {
    std::shared_ptr<http::StreamSink> sink;
    {
      std::lock_guard lock(mu_);
      sink = sink_;
    }
    if (!sink) return;
    last_revision_ = std::max<Revision>(last_revision_, revision);
    if (present_) {
      auto edge = selectorEdge(type, object());
      if (!edge) return;
      type = *edge;
    } else if (!filter_.empty() && !filter_.matches(object())) {
      return;
    }
    if (representation_ == Representation::Object) {
#ifndef NDEBUG
      TROUPE_CHECK(text.empty() || text == object().dump(),
                   "watch of {}: the event's text differs from its object at revision {}",
                   kind_.resource, revision);
#endif
      // A store event always carries its text; the initial list's objects are dumped here.
      // Spliced rather than dumped from json({{"type", ...}, {"object", object}}): that
      // deep copy of the object, and freeing it, cost as much as the serializing.
      const bool pushed =
          text.empty() ? sink->push(lineOf(type, object().dump())) : sink->push(lineOf(type, text));
      if (!pushed) {
        std::lock_guard lock(mu_);
        sink_.reset();
      }
      return;
    }
    json event_object;
    if (representation_ == Representation::Table) {
      json meta = {{"resourceVersion", std::to_string(revision)}};
      event_object =
          makeTable(kind_, {object()}, meta, context_.clock.now(), false, !sent_columns_);
      sent_columns_ = true;
    } else if (representation_ == Representation::PartialObjectMetadata) {
      event_object = partialObjectMetadata(object());
    } else {
      event_object = object();
    }
    std::string line = json({{"type", typeName(type)}, {"object", event_object}}).dump();
    line.push_back('\n');
    if (!sink->push(std::move(line))) {
      std::lock_guard lock(mu_);
      sink_.reset();
    }
  }

  // A selector watch sees an object come and go as the object starts and stops matching,
  // as the real server reports it: ADDED when a write makes it match, DELETED when a write
  // makes it stop (carrying the new state, where the real server sends the previous one
  // stamped with the new revision: both name the object that left), nothing while it does
  // not match. The store's event says only what the write did, so the stream keeps the
  // keys it has reported present. Nothing when the client is not to hear of the event.
  std::optional<EventType> selectorEdge(EventType type, const json& object) {
    std::string key = presenceKey(object);
    const bool was = present_->contains(key);
    const bool is = type != EventType::Deleted && filter_.matches(object);
    if (is) {
      present_->insert(std::move(key));
      return was ? EventType::Modified : EventType::Added;
    }
    if (!was) return std::nullopt;
    present_->erase(key);
    return EventType::Deleted;
  }

  // The keys in the order nlohmann::json writes them (sorted), so the line is the one
  // json({{"type", ...}, {"object", object}}).dump() would write.
  static std::string lineOf(EventType type, std::string_view object_text) {
    std::string line;
    line.reserve(object_text.size() + 32);
    line.append(R"({"object":)");
    line.append(object_text);
    line.append(R"(,"type":")");
    line.append(typeName(type));
    line.append("\"}\n");
    return line;
  }

  void sendBookmark(http::StreamSink& sink) {
    Revision rv =
        std::max<Revision>(last_revision_.load(), context_.objects.store().currentRevision());
    json object = {{"apiVersion", kind_.groupVersion()},
                   {"kind", kind_.kind},
                   {"metadata", {{"resourceVersion", std::to_string(rv)}}}};
    sink.push(json({{"type", "BOOKMARK"}, {"object", object}}).dump() + "\n");
  }

  void closeWith(const Error& error) {
    std::shared_ptr<http::StreamSink> sink;
    {
      std::lock_guard lock(mu_);
      sink = sink_;
    }
    if (!sink) return;
    if (error.code == ErrorCode::Gone) {
      auto status = gone(error.message).status;
      sink->push(json({{"type", "ERROR"}, {"object", status}}).dump() + "\n");
    }
    sink->finish();
  }

  ApiContext& context_;
  ResourceKind kind_;
  std::string ns_;
  ListFilter filter_;
  Representation representation_;
  bool bookmarks_;
  Revision after_;
  std::atomic<Revision> last_revision_;
  std::vector<StoredObject> initial_;
  std::optional<ApiError> gone_;
  // For a watch with a selector: "namespace/name" of each object the client has been
  // told matches (and not told since that it left). Used by one thread at a time: the
  // initial events in start(), then the store's delivery, one turn after another.
  std::optional<std::unordered_set<std::string>> present_;
  std::optional<std::chrono::steady_clock::time_point> deadline_;
  std::chrono::steady_clock::time_point next_bookmark_;
  bool sent_final_bookmark_ = false;
  bool sent_columns_ = false;

  std::mutex mu_;
  bool stopped_ = false;
  std::shared_ptr<http::StreamSink> sink_;
  std::unique_ptr<Watch> watch_;
};

WatchTicker::WatchTicker()
    : thread_([this] {
        nameThisThread("api-watch-tick");
        run();
      }) {}
WatchTicker::~WatchTicker() { stop(); }

void WatchTicker::add(const std::shared_ptr<WatchStream>& stream) {
  std::lock_guard lock(mu_);
  streams_.push_back(stream);
}

void WatchTicker::stop() {
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void WatchTicker::run() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    cv_.wait_for(lock, std::chrono::milliseconds(500));
    if (stopping_) break;
    std::vector<std::weak_ptr<WatchStream>> streams;
    streams.swap(streams_);
    lock.unlock();
    auto now = std::chrono::steady_clock::now();
    std::vector<std::weak_ptr<WatchStream>> alive;
    for (auto& weak : streams) {
      auto stream = weak.lock();
      if (stream && stream->tick(now)) alive.push_back(weak);
    }
    lock.lock();
    streams_.insert(streams_.end(), alive.begin(), alive.end());
  }
}

http::Response handleWatch(ApiContext& context, const RestRequest& request) {
  auto filter = ListFilter::fromRequest(request);
  if (!filter) return statusResponse(filter.error());
  ObjectStore& store = context.objects.store();
  std::string rv = request.http.param("resourceVersion");
  std::vector<StoredObject> initial;
  Revision after = 0;
  std::optional<ApiError> too_old;
  if (rv.empty() || rv == "0") {
    ListOptions options;
    options.resource = request.kind.storageName();
    options.ns = request.kind.namespaced ? request.ns : "";
    auto listed = store.list(options);
    if (!listed) return statusResponse(fromStoreError(listed.error(), request.kind, ""));
    after = listed->revision;
    initial = std::move(listed->items);
  } else {
    char* end = nullptr;
    after = std::strtoll(rv.c_str(), &end, 10);
    if (!end || *end != '\0' || after < 0) {
      return statusResponse(badRequest("invalid resource version: " + rv));
    }
    if (after < store.compactedRevision()) {
      too_old = gone("too old resource version: " + rv + " (" +
                     std::to_string(store.compactedRevision() + 1) + ")");
    }
  }
  std::optional<std::chrono::seconds> timeout;
  auto timeout_param = integerParam(request, "timeoutSeconds");
  if (!timeout_param) return statusResponse(timeout_param.error());
  if (*timeout_param)
    timeout = std::chrono::seconds(
        std::max<std::int64_t>(1, std::min<std::int64_t>(**timeout_param, 1 << 30)));
  bool bookmarks = request.http.param("allowWatchBookmarks") == "true";

  // A selector watch from a resourceVersion starts knowing what the client's list at that
  // version held: the objects that matched then, so one that stops matching is reported.
  // (From "now", the initial events it sends fill the set.)
  std::optional<std::unordered_set<std::string>> present;
  if (!filter->empty()) {
    present.emplace();
    if (!rv.empty() && rv != "0" && !too_old && after <= store.currentRevision()) {
      ListOptions options;
      options.resource = request.kind.storageName();
      options.ns = request.kind.namespaced ? request.ns : "";
      options.at_revision = after;
      auto listed = store.list(options);
      if (!listed) return statusResponse(fromStoreError(listed.error(), request.kind, ""));
      for (const auto& item : listed->items)
        if (filter->matches(item.object)) present->insert(presenceKey(item.object));
    }
  }

  auto stream = std::make_shared<WatchStream>(
      context, request.kind, request.ns, std::move(filter.value()), request.representation,
      bookmarks, after, std::move(initial), timeout, std::move(too_old), std::move(present));
  context.ticker.add(stream);
  http::Response response;
  response.status = 200;
  response.content_type = "application/json";
  response.stream = stream;
  return response;
}

}  // namespace troupe::apiserver
