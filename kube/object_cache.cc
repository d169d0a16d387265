#include "kube/object_cache.h"

#include <algorithm>
#include <mutex>
#include <string_view>
#include <utility>

#include "common/check.h"

namespace troupe::kube {
namespace {

std::string_view viewAt(const nlohmann::json& object, const char* section, const char* key) {
  auto s = object.find(section);
  if (s == object.end() || !s->is_object()) return {};
  auto v = s->find(key);
  return v != s->end() && v->is_string() ? std::string_view(v->get_ref<const std::string&>())
                                         : std::string_view{};
}

std::string stringAt(const nlohmann::json& object, const char* section, const char* key) {
  return std::string(viewAt(object, section, key));
}

}  // namespace

std::string objectKey(const std::string& ns, const std::string& name) {
  return ns.empty() ? name : ns + "/" + name;
}

std::string objectKey(const nlohmann::json& object) {
  return objectKey(stringAt(object, "metadata", "namespace"), stringAt(object, "metadata", "name"));
}

std::string resourceVersionOf(const nlohmann::json& object) {
  return stringAt(object, "metadata", "resourceVersion");
}

int compareObjectKey(const nlohmann::json& object, std::string_view key) {
  const auto ns = viewAt(object, "metadata", "namespace");
  const auto name = viewAt(object, "metadata", "name");
  // objectKey(object) compared piece by piece: "<namespace>", "/", "<name>".
  const std::string_view pieces[] = {ns, ns.empty() ? "" : "/", name};
  std::size_t at = 0;
  for (const auto piece : pieces) {
    const std::size_t n = std::min(piece.size(), key.size() - at);
    if (const int c = piece.substr(0, n).compare(key.substr(at, n)); c != 0) return c;
    if (n < piece.size()) return 1;  // the key ended first
    at += n;
  }
  return at == key.size() ? 0 : -1;
}

IndexFunction indexByNodeName() {
  return [](const nlohmann::json& pod) -> std::vector<std::string> {
    std::string node = stringAt(pod, "spec", "nodeName");
    if (node.empty()) return {};
    return {node};
  };
}

IndexFunction indexByNamespace() {
  return [](const nlohmann::json& object) -> std::vector<std::string> {
    return {stringAt(object, "metadata", "namespace")};
  };
}

void ObjectCache::addIndex(const std::string& name, IndexFunction function) {
  std::unique_lock lock(mu_);
  TROUPE_CHECK(objects_.empty(), "index {} added to a cache holding {} objects", name,
               objects_.size());
  index_functions_[name] = std::move(function);
  indexes_[name];
}

ObjectPtr ObjectCache::get(const std::string& key) const {
  std::shared_lock lock(mu_);
  auto it = objects_.find(key);
  return it == objects_.end() ? nullptr : it->second;
}

std::vector<ObjectPtr> ObjectCache::list() const {
  std::shared_lock lock(mu_);
  std::vector<ObjectPtr> out;
  out.reserve(objects_.size());
  for (const auto& [key, object] : objects_) out.push_back(object);
  return out;
}

std::vector<std::string> ObjectCache::keys() const {
  std::shared_lock lock(mu_);
  std::vector<std::string> out;
  out.reserve(objects_.size());
  for (const auto& [key, object] : objects_) out.push_back(key);
  return out;
}

std::vector<ObjectPtr> ObjectCache::byIndex(const std::string& name,
                                            const std::string& value) const {
  std::shared_lock lock(mu_);
  std::vector<ObjectPtr> out;
  auto index = indexes_.find(name);
  if (index == indexes_.end()) return out;
  auto keys = index->second.find(value);
  if (keys == index->second.end()) return out;
  for (const auto& key : keys->second) out.push_back(objects_.at(key));
  return out;
}

std::size_t ObjectCache::size() const {
  std::shared_lock lock(mu_);
  return objects_.size();
}

void ObjectCache::unindexLocked(const std::string& key, const nlohmann::json& object) {
  for (const auto& [name, function] : index_functions_) {
    auto& index = indexes_[name];
    for (const auto& value : function(object)) {
      auto it = index.find(value);
      if (it == index.end()) continue;
      it->second.erase(key);
      if (it->second.empty()) index.erase(it);
    }
  }
}

ObjectPtr ObjectCache::upsert(ObjectPtr object) {
  TROUPE_CHECK(object != nullptr, "null object in cache upsert");
  const std::string key = objectKey(*object);
  // The new version's index values, found before taking the lock (index functions are
  // pure). Most updates (a binding aside) leave every value as it was: such an index is
  // not touched, where dropping and filing the same entries again, under the lock, was
  // over half of an update's time in the cache.
  std::vector<std::vector<std::string>> values;
  values.reserve(index_functions_.size());
  for (const auto& [name, function] : index_functions_) values.push_back(function(*object));
  std::unique_lock lock(mu_);
  auto [it, inserted] = objects_.try_emplace(key, object);
  ObjectPtr previous;
  if (!inserted) previous = std::exchange(it->second, object);
  std::size_t i = 0;
  for (const auto& [name, function] : index_functions_) {
    auto& index = indexes_[name];
    const auto& now = values[i++];
    if (previous) {
      const auto was = function(*previous);
      if (was == now) continue;
      for (const auto& value : was) {
        auto entry = index.find(value);
        if (entry == index.end()) continue;
        entry->second.erase(key);
        if (entry->second.empty()) index.erase(entry);
      }
    }
    for (const auto& value : now) index[value].insert(key);
  }
  return previous;
}

ObjectPtr ObjectCache::erase(const std::string& key) {
  std::unique_lock lock(mu_);
  auto it = objects_.find(key);
  if (it == objects_.end()) return nullptr;
  ObjectPtr previous = it->second;
  unindexLocked(key, *previous);
  objects_.erase(it);
  return previous;
}

}  // namespace troupe::kube
