#include "test/support/memory_object_store.h"

namespace troupe::testing {

using apiserver::EventType;
using apiserver::ObjectKey;
using apiserver::Revision;
using apiserver::StoredObject;
using apiserver::WatchEvent;

namespace {

class MemoryWatch final : public apiserver::Watch {
 public:
  MemoryWatch(std::recursive_mutex& mu, std::shared_ptr<MemoryObjectStore::Watcher> watcher)
      : mu_(mu), watcher_(std::move(watcher)) {}
  ~MemoryWatch() override {
    std::lock_guard lock(mu_);
    watcher_->active = false;
  }

 private:
  std::recursive_mutex& mu_;
  std::shared_ptr<MemoryObjectStore::Watcher> watcher_;
};

bool selects(const apiserver::WatchOptions& options, const ObjectKey& key) {
  return key.resource == options.resource && (options.ns.empty() || options.ns == key.ns);
}

}  // namespace

MemoryObjectStore::~MemoryObjectStore() = default;

void MemoryObjectStore::publish(WatchEvent event) {
  history_.push_back(event);
  for (auto& w : watchers_)
    if (w->active && selects(w->options, event.key())) w->options.on_event(event);
}

Result<StoredObject> MemoryObjectStore::create(const ObjectKey& key, nlohmann::json object) {
  std::lock_guard lock(mu_);
  if (objects_.count(key)) return makeError(ErrorCode::AlreadyExists, "", key.name);
  ++revision_;
  object["metadata"]["resourceVersion"] = std::to_string(revision_);
  StoredObject stored{key, revision_, std::move(object)};
  objects_[key] = stored;
  publish(WatchEvent(EventType::Added, key, revision_, stored.object.dump()));
  return stored;
}

Result<StoredObject> MemoryObjectStore::update(const ObjectKey& key, nlohmann::json object,
                                               std::optional<Revision> expected) {
  std::lock_guard lock(mu_);
  auto it = objects_.find(key);
  if (it == objects_.end()) return makeError(ErrorCode::NotFound, "", key.name);
  if (expected && *expected != it->second.revision)
    return makeError(ErrorCode::Conflict, "", key.name);
  ++revision_;
  object["metadata"]["resourceVersion"] = std::to_string(revision_);
  it->second = StoredObject{key, revision_, std::move(object)};
  publish(WatchEvent(EventType::Modified, key, revision_, it->second.object.dump()));
  return it->second;
}

Result<StoredObject> MemoryObjectStore::remove(const ObjectKey& key,
                                               std::optional<Revision> expected) {
  std::lock_guard lock(mu_);
  auto it = objects_.find(key);
  if (it == objects_.end()) return makeError(ErrorCode::NotFound, "", key.name);
  if (expected && *expected != it->second.revision)
    return makeError(ErrorCode::Conflict, "", key.name);
  ++revision_;
  StoredObject last = it->second;
  last.revision = revision_;
  last.object["metadata"]["resourceVersion"] = std::to_string(revision_);
  objects_.erase(it);
  publish(WatchEvent(EventType::Deleted, key, revision_, last.object.dump()));
  return last;
}

Result<StoredObject> MemoryObjectStore::get(const ObjectKey& key) {
  std::lock_guard lock(mu_);
  auto it = objects_.find(key);
  if (it == objects_.end()) return makeError(ErrorCode::NotFound, "", key.name);
  return it->second;
}

Result<apiserver::ListResult> MemoryObjectStore::list(const apiserver::ListOptions& options) {
  std::lock_guard lock(mu_);
  if (options.at_revision != 0 && options.at_revision < compacted_)
    return makeError(ErrorCode::Gone, "", "too old");
  apiserver::ListResult result;
  result.revision = revision_;
  // At an earlier revision, each key written since is put back as its history had it.
  std::map<ObjectKey, StoredObject> rewound;
  const bool rewind = options.at_revision != 0 && options.at_revision < revision_;
  if (rewind) {
    result.revision = options.at_revision;
    rewound = objects_;
    std::map<ObjectKey, const apiserver::WatchEvent*> last_before;  // the newest event <= R
    std::map<ObjectKey, const apiserver::WatchEvent*> first_after;  // the oldest event > R
    for (const auto& event : history_) {
      const auto& key = event.key();
      if (event.revision() <= options.at_revision) {
        last_before[key] = &event;
      } else if (!first_after.contains(key)) {
        first_after[key] = &event;
      }
    }
    for (const auto& [key, after] : first_after) {
      auto before = last_before.find(key);
      if (before != last_before.end() && before->second->type() != apiserver::EventType::Deleted) {
        rewound[key] = StoredObject{key, before->second->revision(), before->second->object()};
      } else if (before != last_before.end() || after->type() == apiserver::EventType::Added) {
        rewound.erase(key);  // deleted at R, or created after it
      } else {
        return makeError(ErrorCode::Gone, "", "the history before this revision is compacted");
      }
    }
  }
  for (const auto& [key, stored] : rewind ? rewound : objects_) {
    if (key.resource != options.resource) continue;
    if (!options.ns.empty() && key.ns != options.ns) continue;
    if (options.after &&
        std::tie(key.ns, key.name) <= std::tie(options.after->ns, options.after->name))
      continue;
    if (options.limit && result.items.size() == options.limit) {
      result.more = true;
      break;
    }
    result.items.push_back(stored);
  }
  return result;
}

Result<std::unique_ptr<apiserver::Watch>> MemoryObjectStore::watch(
    apiserver::WatchOptions options) {
  std::lock_guard lock(mu_);
  if (options.after_revision != 0 && options.after_revision < compacted_)
    return makeError(ErrorCode::Gone, "", "too old");
  auto watcher = std::make_shared<Watcher>();
  watcher->options = std::move(options);
  Revision from =
      watcher->options.after_revision == 0 ? revision_ : watcher->options.after_revision;
  for (const auto& event : history_)
    if (event.revision() > from && selects(watcher->options, event.key()))
      watcher->options.on_event(event);
  watchers_.push_back(watcher);
  return std::unique_ptr<apiserver::Watch>(std::make_unique<MemoryWatch>(mu_, watcher));
}

Revision MemoryObjectStore::currentRevision() const {
  std::lock_guard lock(mu_);
  return revision_;
}

Revision MemoryObjectStore::compactedRevision() const {
  std::lock_guard lock(mu_);
  return compacted_;
}

void MemoryObjectStore::compact(Revision revision) {
  std::lock_guard lock(mu_);
  compacted_ = revision;
  std::erase_if(history_, [&](const WatchEvent& e) { return e.revision() <= revision; });
}

}  // namespace troupe::testing
