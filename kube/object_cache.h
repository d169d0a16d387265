#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

// A thread-safe store of the objects an informer has seen, keyed "<namespace>/<name>"
// ("<name>" when cluster-scoped), with named secondary indexes (pods by spec.nodeName).
// Objects are shared immutable JSON: readers hold a snapshot of an object however the
// cache changes afterwards. Every listing is in key order.
namespace troupe::kube {

using ObjectPtr = std::shared_ptr<const nlohmann::json>;

// The values an object is filed under in one index (none: not indexed).
using IndexFunction = std::function<std::vector<std::string>(const nlohmann::json&)>;

// "<namespace>/<name>" or "<name>".
std::string objectKey(const nlohmann::json& object);
std::string objectKey(const std::string& ns, const std::string& name);
// objectKey(object).compare(key), without building the key: negative, zero or positive.
int compareObjectKey(const nlohmann::json& object, std::string_view key);
// metadata.resourceVersion, or "" when the object has none.
std::string resourceVersionOf(const nlohmann::json& object);

// Pods by spec.nodeName (unbound pods are not indexed).
IndexFunction indexByNodeName();
// Objects by metadata.namespace.
IndexFunction indexByNamespace();

class ObjectCache {
 public:
  // Indexes must be added before the first object, and before the cache is shared with
  // another thread (upsert reads the index functions without the lock).
  void addIndex(const std::string& name, IndexFunction function);

  ObjectPtr get(const std::string& key) const;
  std::vector<ObjectPtr> list() const;
  std::vector<std::string> keys() const;
  // The objects filed under `value` in index `name` (none if the index does not exist).
  std::vector<ObjectPtr> byIndex(const std::string& name, const std::string& value) const;
  std::size_t size() const;

  // Inserts or replaces; returns the previous object (null if new).
  ObjectPtr upsert(ObjectPtr object);
  // Removes; returns the removed object (null if absent).
  ObjectPtr erase(const std::string& key);

 private:
  void unindexLocked(const std::string& key, const nlohmann::json& object);

  mutable std::shared_mutex mu_;
  std::map<std::string, ObjectPtr> objects_;  // guarded by mu_
  std::map<std::string, IndexFunction> index_functions_;
  // index name -> value -> keys; always agrees with objects_ and index_functions_.
  std::map<std::string, std::map<std::string, std::set<std::string>>> indexes_;
};

}  // namespace troupe::kube
