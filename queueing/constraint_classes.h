#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "queueing/ids.h"
#include "queueing/node_state.h"
#include "queueing/resource_vector.h"
#include "queueing/snapshot.h"

namespace troupe::queueing {

// Nodes a pod shape's constraints (selector, affinity, tolerations) allow. Shapes with
// equal constraints share one class, so eligibility is computed once per class.
struct ConstraintClass {
  PodShape exemplar;  // requests ignored
  std::uint64_t epoch = 0;
  std::vector<NodeId> eligible;      // sorted by node id
  std::vector<std::uint8_t> allows;  // by node id
  // Every usable node is eligible (allows[n] == usable(n) for every node).
  bool allows_every_usable = false;
  // For explanations: the most one eligible node has (allocatable), and per topology level
  // the most the eligible nodes of one domain have together, resource by resource.
  ResourceVector largest_node;
  std::array<ResourceVector, kMaxLevels> largest_domain{};
};

// The constraint classes of every shape the engine has seen, interned and never forgotten.
// Class 0: no selector, no affinity, no tolerations.
class ConstraintClasses {
 public:
  ConstraintClasses();

  // The class of `shape`'s constraints, added if new.
  std::int32_t classFor(const PodShape& shape);
  // Class `cls` with the nodes it allows as of nodes `epoch` (StateVersions::nodes),
  // computed again when the epoch moved since.
  const ConstraintClass& eligibility(std::int32_t cls, const std::vector<NodeState>& nodes,
                                     std::uint64_t epoch);
  // Class `cls` as last computed.
  const ConstraintClass& operator[](std::int32_t cls) const {
    return classes_[static_cast<std::size_t>(cls)];
  }

 private:
  std::vector<ConstraintClass> classes_;
  std::unordered_map<std::string, std::int32_t> ids_;  // by canonical constraint text
};

// Whether `node`'s labels and taints allow a pod of `shape` (selector, required affinity,
// tolerations; PreferNoSchedule taints are ignored).
bool nodeAllows(const NodeSpec& node, const PodShape& shape);

// The value of label `key`, or null.
const std::string* labelValue(const Labels& labels, const std::string& key);

}  // namespace troupe::queueing
