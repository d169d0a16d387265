#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "controllers/object_list.h"

// What a pod is taken to be after the controllers' own write (a binding, a deletion) until
// the informer cache shows it: a cycle that ran on the cache alone would place a pod just
// bound a second time, or count a deleted one's capacity as still held. Each assumption
// lasts until the cache catches up (the pod bound or being deleted, or another pod of that
// name), the pod leaves the cache, or a minute passes. Thread-safe: the scheduling thread
// binds, and the reconcile workers delete pods too.
namespace troupe::controllers {

class AssumedPods {
 public:
  // The pod "namespace/name" of `uid` (empty: whichever the cache holds) is bound to `node`
  // with the GPU indices `gpus` ("0,1"), as of `now` (seconds).
  void bound(const std::string& key, std::string uid, std::string node, std::string gpus,
             std::int64_t now);
  // The pod "namespace/name" of `uid` is being deleted.
  void deleted(const std::string& key, std::string uid, std::int64_t now);

  // The uid of a pod bound here that the cache does not show bound yet.
  std::optional<std::string> boundByUs(const std::string& key) const;

  // Puts the assumed pods in place of the cache's `pods` (listed in key order), and drops
  // the assumptions the cache caught up with or that expired by `now`.
  void overlay(ObjectList& pods, std::int64_t now);

 private:
  struct Assumed {
    std::string uid;
    std::string node;  // bound there
    std::string gpus;
    bool deleted = false;
    std::int64_t expires = 0;
    // The cache's version of the pod the last overlay assumed this over, and the assumed
    // copy it made. While the cache holds that same version, an overlay reuses the copy:
    // the same document reads as unchanged facts, where a new copy every cycle was read
    // again.
    ObjectRef seen;
    ObjectRef made;
  };

  mutable std::mutex mu_;
  std::map<std::string, Assumed> assumed_;  // by "namespace/name", the caches' key order
};

}  // namespace troupe::controllers
