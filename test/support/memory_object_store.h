#pragma once

#include <map>
#include <mutex>
#include <vector>

#include "apiserver/storage/object_store.h"

// An in-memory ObjectStore for unit tests of the REST layer: every write is kept in the
// history (until compact()), watches are served from it, and events are delivered on
// the writing thread. Lists at an earlier revision put back what the history had then
// (Gone below the compacted revision).
namespace troupe::testing {

class MemoryObjectStore final : public apiserver::ObjectStore {
 public:
  ~MemoryObjectStore() override;
  Result<apiserver::StoredObject> create(const apiserver::ObjectKey& key,
                                         nlohmann::json object) override;
  Result<apiserver::StoredObject> update(const apiserver::ObjectKey& key, nlohmann::json object,
                                         std::optional<apiserver::Revision> expected) override;
  Result<apiserver::StoredObject> remove(const apiserver::ObjectKey& key,
                                         std::optional<apiserver::Revision> expected) override;
  Result<apiserver::StoredObject> get(const apiserver::ObjectKey& key) override;
  Result<apiserver::ListResult> list(const apiserver::ListOptions& options) override;
  Result<std::unique_ptr<apiserver::Watch>> watch(apiserver::WatchOptions options) override;
  apiserver::Revision currentRevision() const override;
  apiserver::Revision compactedRevision() const override;

  void compact(apiserver::Revision revision);

  struct Watcher {
    apiserver::WatchOptions options;
    bool active = true;
  };

 private:
  void publish(apiserver::WatchEvent event);  // with mu_ held

  mutable std::recursive_mutex mu_;
  std::map<apiserver::ObjectKey, apiserver::StoredObject> objects_;
  std::vector<apiserver::WatchEvent> history_;
  std::vector<std::shared_ptr<Watcher>> watchers_;
  apiserver::Revision revision_ = 0;
  apiserver::Revision compacted_ = 0;
};

}  // namespace troupe::testing
