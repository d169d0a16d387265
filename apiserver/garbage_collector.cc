#include "apiserver/garbage_collector.h"

#include <algorithm>

#include "apiserver/objects/object_meta.h"
#include "common/json_member.h"
#include "common/log.h"
#include "common/thread_name.h"

namespace troupe::apiserver {

namespace {

using json = nlohmann::json;

std::vector<std::string> ownerUids(const json& object) {
  std::vector<std::string> out;
  if (!object.is_object() || !object.contains("metadata")) return out;
  const json& meta = object["metadata"];
  if (!meta.contains("ownerReferences") || !meta["ownerReferences"].is_array()) return out;
  for (const auto& ref : meta["ownerReferences"])
    if (ref.is_object() && ref.contains("uid") && ref["uid"].is_string()) out.push_back(ref["uid"]);
  return out;
}

bool hasFinalizer(const json& object, const std::string& finalizer) {
  if (!object.is_object() || !object.contains("metadata")) return false;
  const json& meta = object["metadata"];
  if (!meta.contains("finalizers") || !meta["finalizers"].is_array()) return false;
  for (const auto& f : meta["finalizers"])
    if (f == finalizer) return true;
  return false;
}

ObjectKey keyFromObject(const ResourceKind& kind, const json& object) {
  return ObjectKey{kind.storageName(), kind.namespaced ? metaString(object, "namespace") : "",
                   metaString(object, "name")};
}

}  // namespace

GarbageCollector::GarbageCollector(ObjectService& objects) : objects_(objects) {}

GarbageCollector::~GarbageCollector() { stop(); }

Status GarbageCollector::start() {
  for (const auto& kind : objects_.registry().all()) {
    ListOptions options;
    options.resource = kind.storageName();
    auto listed = objects_.store().list(options);
    if (!listed) return listed.error();
    for (const auto& item : listed->items) {
      index(item.key, nullptr, item.object);
      if (hasFinalizer(item.object, "foregroundDeletion"))
        enqueue(Foreground{item.key, metaString(item.object, "uid")});
      if (hasFinalizer(item.object, "orphan"))
        enqueue(Orphan{item.key, metaString(item.object, "uid")});
    }
  }
  // Owners that went while the server was down: their dependents are orphans now.
  std::vector<std::string> gone;
  {
    std::lock_guard lock(mu_);
    for (const auto& [uid, deps] : dependents_)
      if (!live_.count(uid)) gone.push_back(uid);
  }
  std::sort(gone.begin(), gone.end());  // hash order is no order: take them by uid
  for (const auto& uid : gone) enqueue(OwnerRemoved{uid});
  worker_ = std::thread([this] {
    nameThisThread("api-gc");
    run();
  });
  return {};
}

void GarbageCollector::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (worker_.joinable()) worker_.join();
}

void GarbageCollector::drain() {
  std::unique_lock lock(mu_);
  idle_cv_.wait(lock, [this] { return (queue_.empty() && !busy_) || stopping_; });
}

void GarbageCollector::index(const ObjectKey& key, const json& before, const json& after) {
  // Most writes are updates that keep the object's uid and owners (a binding, a status
  // write): the index would drop and add the same entries, under the lock every API
  // handler thread takes.
  if (!before.is_null() && !after.is_null() &&
      metaString(before, "uid") == metaString(after, "uid") &&
      ownerUids(before) == ownerUids(after))
    return;
  std::lock_guard lock(mu_);
  if (!before.is_null()) {
    for (const auto& uid : ownerUids(before)) {
      auto it = dependents_.find(uid);
      if (it == dependents_.end()) continue;
      it->second.erase(key);
      if (it->second.empty()) dependents_.erase(it);
    }
    live_.erase(metaString(before, "uid"));
  }
  if (!after.is_null()) {
    for (const auto& uid : ownerUids(after)) dependents_[uid].insert(key);
    live_[metaString(after, "uid")] = key;
  }
}

void GarbageCollector::observe(const ResourceKind& kind, const json& before, const json& after) {
  const json& some = after.is_null() ? before : after;
  ObjectKey key = keyFromObject(kind, some);
  index(key, before, after);
  std::string uid = metaString(some, "uid");
  if (after.is_null()) {
    bool has_dependents;
    std::vector<Task> wake;
    {
      std::lock_guard lock(mu_);
      has_dependents = dependents_.count(uid) > 0;
      foreground_.erase(uid);
      for (const auto& owner : ownerUids(before)) {
        auto it = foreground_.find(owner);
        if (it != foreground_.end()) wake.push_back(Foreground{it->second, owner});
      }
    }
    if (has_dependents) enqueue(OwnerRemoved{uid});
    for (auto& task : wake) enqueue(std::move(task));
    if (kind.storageName() == "namespaces") enqueue(NamespaceRemoved{key.name});
    if (kind.storageName() == "customresourcedefinitions.apiextensions.k8s.io")
      enqueue(CrdRemoved{before});
    return;
  }
  if (!after["metadata"].contains("deletionTimestamp")) return;
  if (hasFinalizer(after, "foregroundDeletion") && !hasFinalizer(before, "foregroundDeletion")) {
    {
      std::lock_guard lock(mu_);
      foreground_[uid] = key;
    }
    enqueue(Foreground{key, uid});
  }
  if (hasFinalizer(after, "orphan") && !hasFinalizer(before, "orphan")) enqueue(Orphan{key, uid});
}

void GarbageCollector::enqueue(Task task) {
  {
    std::lock_guard lock(mu_);
    queue_.push_back(std::move(task));
  }
  cv_.notify_one();
}

void GarbageCollector::run() {
  std::unique_lock lock(mu_);
  while (true) {
    cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (stopping_) break;
    Task task = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    lock.unlock();
    process(task);
    lock.lock();
    busy_ = false;
    if (queue_.empty()) idle_cv_.notify_all();
  }
  idle_cv_.notify_all();
}

void GarbageCollector::deleteObject(const ObjectKey& key, const std::string& policy) {
  auto kind = objects_.registry().findByStorageName(key.resource);
  if (!kind) return;
  DeleteOptions options;
  options.propagation_policy = policy;
  auto removed = objects_.remove(*kind, key.ns, key.name, options);
  if (!removed && removed.error().code != 404) {
    log::warn("garbage collector could not delete", {{"resource", key.resource},
                                                     {"namespace", key.ns},
                                                     {"name", key.name},
                                                     {"status", removed.error().status}});
  }
}

void GarbageCollector::removeOwnerReference(const ObjectKey& dependent,
                                            const std::string& owner_uid) {
  auto kind = objects_.registry().findByStorageName(dependent.resource);
  if (!kind) return;
  (void)objects_.mutate(
      *kind, dependent.ns, dependent.name,
      [&](const json& current) -> ApiResult<json> {
        json next = current;
        json refs = json::array();
        for (const auto& ref : current["metadata"].value("ownerReferences", json::array()))
          if (ref.value("uid", "") != owner_uid) refs.push_back(ref);
        if (refs.empty()) {
          next["metadata"].erase("ownerReferences");
        } else {
          next["metadata"]["ownerReferences"] = refs;
        }
        return next;
      },
      Subresource::All, false);
}

void GarbageCollector::removeFinalizer(const ObjectKey& owner, const std::string& finalizer) {
  auto kind = objects_.registry().findByStorageName(owner.resource);
  if (!kind) return;
  (void)objects_.mutate(
      *kind, owner.ns, owner.name,
      [&](const json& current) -> ApiResult<json> {
        json next = current;
        json kept = json::array();
        for (const auto& f : current["metadata"].value("finalizers", json::array()))
          if (f != finalizer) kept.push_back(f);
        next["metadata"]["finalizers"] = kept;
        if (kept.empty()) next["metadata"].erase("finalizers");
        return next;
      },
      Subresource::All, false);
}

void GarbageCollector::process(const Task& task) {
  auto dependentsOf = [this](const std::string& uid) {
    std::lock_guard lock(mu_);
    auto it = dependents_.find(uid);
    return it == dependents_.end() ? std::set<ObjectKey>{} : it->second;
  };
  if (const auto* removed = std::get_if<OwnerRemoved>(&task)) {
    for (const auto& dep : dependentsOf(removed->uid)) {
      auto kind = objects_.registry().findByStorageName(dep.resource);
      if (!kind) continue;
      auto current = objects_.get(*kind, dep.ns, dep.name);
      if (!current) continue;
      bool other_owner_alive = false;
      {
        std::lock_guard lock(mu_);
        for (const auto& uid : ownerUids(current->object))
          if (uid != removed->uid && live_.count(uid)) other_owner_alive = true;
      }
      if (other_owner_alive) {
        removeOwnerReference(dep, removed->uid);
      } else {
        deleteObject(dep, "Background");
      }
    }
  } else if (const auto* fg = std::get_if<Foreground>(&task)) {
    auto deps = dependentsOf(fg->uid);
    if (deps.empty()) {
      removeFinalizer(fg->owner, "foregroundDeletion");
    } else {
      for (const auto& dep : deps) deleteObject(dep, "Foreground");
    }
  } else if (const auto* orphan = std::get_if<Orphan>(&task)) {
    for (const auto& dep : dependentsOf(orphan->uid)) removeOwnerReference(dep, orphan->uid);
    removeFinalizer(orphan->owner, "orphan");
  } else if (const auto* ns = std::get_if<NamespaceRemoved>(&task)) {
    for (const auto& kind : objects_.registry().all()) {
      if (!kind.namespaced) continue;
      ListOptions options;
      options.resource = kind.storageName();
      options.ns = ns->ns;
      auto listed = objects_.store().list(options);
      if (!listed) continue;
      for (const auto& item : listed->items) {
        DeleteOptions force;
        force.grace_period_seconds = 0;
        (void)objects_.remove(kind, item.key.ns, item.key.name, force);
      }
    }
  } else if (const auto* crd = std::get_if<CrdRemoved>(&task)) {
    auto kinds = kindsFromCrd(crd->crd);
    if (!kinds || kinds->empty()) return;
    ListOptions options;
    options.resource = kinds->front().storageName();
    auto listed = objects_.store().list(options);
    if (!listed) return;
    for (const auto& item : listed->items) (void)objects_.store().remove(item.key, std::nullopt);
  }
}

}  // namespace troupe::apiserver
