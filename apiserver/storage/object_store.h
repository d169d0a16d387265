#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/check.h"
#include "common/json_parse.h"
#include "common/result.h"

// The embedded API server's storage: a versioned key-value store of JSON objects with
// a watchable history, in the spirit of etcd as kine presents it to k3s.
//
// The store knows nothing of Kubernetes semantics beyond resourceVersion: uid,
// generation, creationTimestamp, finalizers, defaulting and validation belong to the
// REST layer above. The store only stamps `metadata.resourceVersion`.
namespace troupe::apiserver {

// Identity of a stored object. `resource` is "<plural>" for the core group and
// "<plural>.<group>" otherwise ("pods", "leases.coordination.k8s.io",
// "trainingjobs.troupe.dev"). `ns` is empty for cluster-scoped resources.
struct ObjectKey {
  std::string resource;
  std::string ns;
  std::string name;

  friend bool operator==(const ObjectKey&, const ObjectKey&) = default;
  friend auto operator<=>(const ObjectKey&, const ObjectKey&) = default;
};

// A revision is a global, strictly increasing counter (etcd's revision); every
// successful write takes the next one. Rendered to clients as a decimal string.
using Revision = std::int64_t;

struct StoredObject {
  ObjectKey key;
  Revision revision = 0;  // the revision that last wrote this object
  nlohmann::json object;  // with metadata.resourceVersion == std::to_string(revision)
  // `object` as nlohmann::json::dump() writes it, when a write had that text at hand
  // (stampRevisionText); empty otherwise. The answer to the write sends these bytes.
  std::string text;
};

enum class EventType { Added, Modified, Deleted };

// One write as a watch reports it. `text` is the object as nlohmann::json::dump() writes
// it, resourceVersion included (for Deleted: its last state, stamped with the deleting
// revision); every watch stream sends these bytes. The parsed object is made from the text
// the first time a reader asks for it (a selector to match, a Table to render, a log to
// follow), once, and shared by the event's copies: a stream that only forwards the bytes,
// the common case, never parses. Holding text rather than a tree also keeps the store's
// recent history small, and freeing an event cheap.
class WatchEvent {
 public:
  WatchEvent(EventType type, ObjectKey key, Revision revision, std::string text)
      : type_(type),
        key_(std::move(key)),
        revision_(revision),
        text_(std::move(text)),
        parsed_(std::make_shared<Parsed>()) {}

  EventType type() const { return type_; }
  const ObjectKey& key() const { return key_; }
  Revision revision() const { return revision_; }
  const std::string& text() const { return text_; }
  // Parsed on first use, from any thread. Text that is not a JSON object stops loudly:
  // the store wrote it, so that is a broken invariant, not bad input.
  const nlohmann::json& object() const {
    std::call_once(parsed_->once, [&] {
      parsed_->object = parseJson(text_);
      TROUPE_CHECK(parsed_->object.is_object(),
                   "the watch event of {} \"{}\" at revision {} holds no JSON object ({} bytes)",
                   key_.resource, key_.name, revision_, text_.size());
    });
    return parsed_->object;
  }

 private:
  struct Parsed {
    std::once_flag once;
    nlohmann::json object;
  };
  EventType type_;
  ObjectKey key_;
  Revision revision_;
  std::string text_;
  std::shared_ptr<Parsed> parsed_;
};

struct ListOptions {
  std::string resource;
  std::string ns;                  // empty: every namespace (or cluster-scoped)
  std::optional<ObjectKey> after;  // continue after this key (exclusive), keys in (ns, name) order
  std::size_t limit = 0;           // 0: no limit
  // Read at this revision (for continue tokens). 0: the current revision. A revision
  // older than the compacted one is ErrorCode::Gone.
  Revision at_revision = 0;
};

struct ListResult {
  std::vector<StoredObject> items;  // ordered by (ns, name)
  Revision revision = 0;            // the revision the list was read at
  bool more = false;                // true when `limit` cut the list short
};

// A live watch. Events arrive in revision order on the callback given to watch(), from
// a thread owned by the store; the callback must not block (it queues and returns).
// Destroying the Watch stops delivery; the callback is never called after that.
class Watch {
 public:
  virtual ~Watch() = default;
};

struct WatchOptions {
  std::string resource;
  std::string ns;  // empty: every namespace
  // Deliver events with revision > after_revision, replaying history first when it is
  // in the past. 0 means "from now": only writes after the store's current revision.
  Revision after_revision = 0;
  std::function<void(const WatchEvent&)> on_event;
  // Called once if the watch ends from the store's side: the watcher fell too far
  // behind (ErrorCode::TooManyRequests; re-watch from the last revision received) or
  // the store is closing (ErrorCode::Unavailable). No events follow it.
  std::function<void(const Error&)> on_close;
};

class ObjectStore {
 public:
  virtual ~ObjectStore() = default;

  // Each write returns only once it is durable (fsync'd); a crash after the return loses
  // nothing, a crash before it leaves no trace of the write.

  // ErrorCode::AlreadyExists if the key is present.
  virtual Result<StoredObject> create(const ObjectKey& key, nlohmann::json object) = 0;
  // ErrorCode::NotFound if absent; ErrorCode::Conflict if `expected` is set and differs
  // from the stored revision.
  virtual Result<StoredObject> update(const ObjectKey& key, nlohmann::json object,
                                      std::optional<Revision> expected) = 0;
  // Removes the object; returns its last state stamped with the deleting revision.
  virtual Result<StoredObject> remove(const ObjectKey& key, std::optional<Revision> expected) = 0;

  virtual Result<StoredObject> get(const ObjectKey& key) = 0;
  virtual Result<ListResult> list(const ListOptions& options) = 0;

  // ErrorCode::Gone when after_revision is older than the compacted revision.
  virtual Result<std::unique_ptr<Watch>> watch(WatchOptions options) = 0;

  virtual Revision currentRevision() const = 0;
  virtual Revision compactedRevision() const = 0;

  // Whether a write could be stored now, for /readyz: an error naming why not (a full or
  // read-only disk, the last write's failure). Reads go on either way.
  virtual Status writable() const { return {}; }
};

}  // namespace troupe::apiserver
