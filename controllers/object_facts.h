#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/result.h"
#include "controllers/object_json.h"
#include "controllers/object_list.h"
#include "queueing/resource_vector.h"
#include "queueing/snapshot.h"

// What the scheduling cycle reads of pods, nodes and PodGroups, parsed once per version
// of each.
//
// Every cycle builds the engine's snapshot from every object the caches hold, and
// most have not changed since the last cycle. Reading their fields out of JSON (labels,
// annotations, requests, quantities, selectors, GPU topology) cost more than the engine's
// own work at a few thousand pods. The informer caches keep each version of an object as
// one immutable shared document, so a version is recognised by its address, and its facts
// are kept as long as the caches still hand out that same document.
namespace troupe::controllers {

// Resource amounts by name, in the order the object names them: mapping them to a
// cycle's slots in this order assigns slots exactly as parsing the object in that cycle
// would.
struct NamedAmounts {
  std::vector<std::pair<std::string, std::int64_t>> amounts;
  std::optional<Error> error;

  // The amounts in `names`' slots, adding names it does not know yet.
  Result<queueing::ResourceVector> in(queueing::ResourceNames& names) const;
};

// A pod's scheduling constraints, without its requests (which the cycle maps to its own
// resource slots), and a key equal for equal shapes.
struct PodShapeFacts {
  queueing::PodShape shape;  // requests left empty
  std::string key;
};

struct PodFacts {
  std::string ns;
  std::string name;
  std::string key;  // "namespace/name"
  std::string uid;
  // "namespace/podgroup" of a Troupe pod: the group it names, or its own
  // (controllers/lone_pod.h); empty for a pod Troupe does not schedule.
  std::string group;
  bool lone = false;  // `group` is the pod's own (no troupe.dev/pod-group label)
  std::string node;   // spec.nodeName, empty while unbound
  bool troupe = false;
  bool terminated = false;  // Succeeded or Failed
  bool deleting = false;
  std::int32_t replica_index = -1;  // the troupe.dev/replica-index label, or -1
  std::vector<int> gpus;            // the GPU indices annotation
  std::optional<std::int64_t> start_time;
  std::optional<std::int32_t> priority;        // spec.priority
  std::string priority_class;                  // spec.priorityClassName
  NamedAmounts requests;                       // what the pod asks of a node (podRequests)
  std::shared_ptr<const PodShapeFacts> shape;  // null when shape_error is set
  std::optional<Error> shape_error;
};

PodFacts readPodFacts(const nlohmann::json& pod);

struct NodeFacts {
  queueing::NodeSpec spec;  // allocatable left empty
  NamedAmounts allocatable;
  std::optional<Error> error;  // a damaged GPU topology annotation
};

NodeFacts readNodeFacts(const nlohmann::json& node);

// What the engine's gang spec takes from a PodGroup.
struct PodGroupFacts {
  std::string key;  // "namespace/name"
  std::string queue;
  std::int32_t min_member = 1;
  bool finished = false;  // status.phase Succeeded or Failed
  std::string priority_class;
  // The troupe.dev/submitted-at annotation, else the creation time; nullopt: neither.
  std::optional<std::int64_t> submit_time;
  bool preemptible = true;
  std::string topology_level;
  bool topology_required = false;
  std::optional<std::int64_t> runtime_estimate;
  // spec.gpuTypes: the GPU types the gang accepts, most preferred first; empty: any.
  std::vector<std::string> gpu_types;
};

PodGroupFacts readPodGroupFacts(const nlohmann::json& group);

// Facts of the objects a cycle reads, kept from one cycle to the next for the versions
// that did not change. Not thread-safe: one scheduling loop owns it.
//
// Each read() takes a whole listing and walks it beside the previous one: the caches list
// in key order, so an unchanged document is almost always found at the next place of the
// previous listing, and a new, changed or deleted object is passed over by comparing keys.
// A lookup table by document address cost 40% of a snapshot at 35,000 pods (a cache miss
// per object, and a sweep of the whole table every cycle). Facts are reused only for the
// same document, so a listing in another order is still read correctly, only more slowly.
template <class Facts>
class FactsCache {
 public:
  using Reader = Facts (*)(const nlohmann::json&);
  explicit FactsCache(Reader read) : read_(read) {}

  // What one read() found different from the listing before: the facts an object had
  // (null when it is new) and has (null when it is gone). An object listed in another
  // place than before may show as gone and new at once.
  struct Change {
    std::shared_ptr<const Facts> before;
    std::shared_ptr<const Facts> after;
  };

  // Reads `list`: afterwards (*this)[i] is the facts of its i-th object. The facts of
  // objects the previous listing had and this one has not are forgotten.
  void read(const ObjectList& list) {
    std::vector<Entry> next;
    next.reserve(list.size());
    changes_.clear();
    std::size_t j = 0;  // the place in the previous listing
    // Entries of the previous listing passed over without being taken: gone, or replaced.
    auto skip = [&] {
      if (entries_[j].facts) changes_.push_back({std::move(entries_[j].facts), nullptr});
      ++j;
    };
    for (std::size_t i = 0; i < list.size(); ++i) {
      const ObjectRef& object = list.ref(i);
      if (j < entries_.size() && entries_[j].object == object) {
        next.push_back(std::move(entries_[j++]));
        continue;
      }
      auto key = keyOf(*object);
      while (j < entries_.size() && entries_[j].key < key) skip();  // deleted since
      if (j < entries_.size() && entries_[j].object == object) {
        next.push_back(std::move(entries_[j++]));
        continue;
      }
      if (j < entries_.size() && entries_[j].key == key) skip();  // an older version
      auto facts = std::make_shared<const Facts>(read_(*object));
      changes_.push_back({nullptr, facts});
      next.push_back({object, std::move(key), std::move(facts)});
      ++parsed_;
    }
    while (j < entries_.size()) skip();  // deleted since, after the last one listed
    entries_ = std::move(next);
    ++reads_;
  }
  // The differences the last read() found: every object new, changed or gone since the
  // read before. A listing out of key order may also report some unchanged objects, as
  // gone and new.
  const std::vector<Change>& changes() const { return changes_; }
  // How many listings were read: tells a reader of changes() which read they follow.
  std::uint64_t reads() const { return reads_; }
  const Facts& operator[](std::size_t i) const { return *entries_[i].facts; }
  // The same facts, shared: they stay valid after the cache moves on.
  const std::shared_ptr<const Facts>& shared(std::size_t i) const { return entries_[i].facts; }
  std::size_t size() const { return entries_.size(); }
  // Objects parsed since the cache was made: a measure of what the cache saved.
  std::uint64_t parsed() const { return parsed_; }

 private:
  struct Entry {
    ObjectRef object;  // keeps the address from being reused while the entry lives
    std::string key;   // "namespace/name", or "name": the caches' order
    std::shared_ptr<const Facts> facts;
  };
  Reader read_;
  std::vector<Entry> entries_;  // in the order of the last listing read
  std::vector<Change> changes_;
  std::uint64_t parsed_ = 0;
  std::uint64_t reads_ = 0;
};

}  // namespace troupe::controllers
