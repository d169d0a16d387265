#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/error.h"
#include "common/result.h"
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
  std::string group;  // "namespace/podgroup" of a Troupe pod in a gang, else empty
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
};

PodGroupFacts readPodGroupFacts(const nlohmann::json& group);

// Facts of the objects a cycle reads, kept from one cycle to the next for the versions
// that did not change. Not thread-safe: one scheduling loop owns it.
template <class Facts>
class FactsCache {
 public:
  using Reader = Facts (*)(const nlohmann::json&);
  explicit FactsCache(Reader read) : read_(read) {}

  const Facts& of(const ObjectRef& object) {
    auto [it, added] = entries_.try_emplace(object.get());
    if (added) {
      it->second.object = object;
      it->second.facts = read_(*object);
      ++parsed_;
    }
    if (it->second.cycle != cycle_) {
      it->second.cycle = cycle_;
      ++read_this_cycle_;
    }
    return it->second.facts;
  }
  // Ends a cycle: forgets the versions the cycle did not read (and the documents they
  // kept alive). When the cycle read every entry, there is nothing to look for.
  void sweep() {
    if (read_this_cycle_ != entries_.size())
      std::erase_if(entries_, [&](const auto& kv) { return kv.second.cycle != cycle_; });
    ++cycle_;
    read_this_cycle_ = 0;
  }
  std::size_t size() const { return entries_.size(); }
  // Objects parsed since the cache was made: a measure of what the cache saved.
  std::uint64_t parsed() const { return parsed_; }

 private:
  struct Entry {
    ObjectRef object;  // keeps the address from being reused while the entry lives
    Facts facts;
    std::uint64_t cycle = 0;
  };
  Reader read_;
  std::unordered_map<const nlohmann::json*, Entry> entries_;
  std::uint64_t cycle_ = 1;
  std::size_t read_this_cycle_ = 0;  // distinct entries read since the last sweep
  std::uint64_t parsed_ = 0;
};

// What the scheduling loop keeps from one snapshot build to the next.
struct SnapshotFacts {
  FactsCache<PodFacts> pods{readPodFacts};
  FactsCache<NodeFacts> nodes{readNodeFacts};
  FactsCache<PodGroupFacts> groups{readPodGroupFacts};
  void sweep() {
    pods.sweep();
    nodes.sweep();
    groups.sweep();
  }
};

}  // namespace troupe::controllers
