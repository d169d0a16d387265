#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/queue.h"
#include "api/validated.h"
#include "common/error.h"

// The Queues as a forest, and which of them cannot take jobs and why. One rule book for the
// tree's invariants, read by admission (a write that would break them is refused) and by
// the controllers (a queue that breaks them anyway stops admitting, and only it):
//   - a queue's spec keeps api/'s rules (InvalidSpec);
//   - its parent exists (ParentNotFound) and it is not its own ancestor (Cycle);
//   - the guarantees of a parent's children fit within the parent's own, per resource.
//     When they do not, the children created last (then by name) that do not fit are the
//     ones that break it (GuaranteeExceedsParent): the queues that were there first, and
//     the parent, keep working;
//   - below a queue that cannot take jobs, none can (ParentNotReady).
namespace troupe::admission {

// Reasons of a Queue's Ready=False condition (docs/api.md).
inline constexpr std::string_view kQueueInvalidSpec = "InvalidSpec";
inline constexpr std::string_view kQueueParentNotFound = "ParentNotFound";
inline constexpr std::string_view kQueueCycle = "Cycle";
inline constexpr std::string_view kQueueGuaranteeExceedsParent = "GuaranteeExceedsParent";
inline constexpr std::string_view kQueueParentNotReady = "ParentNotReady";

struct QueueProblem {
  std::string reason;  // one of the constants above
  Error error;         // the field and the rule, in api/'s words
};

class QueueForest {
 public:
  // Queues as decoded and validated; with the same name, the last one given wins.
  explicit QueueForest(std::vector<api::Validated<api::Queue>> queues);

  const api::Queue* find(const std::string& name) const;
  // Children of `name`, by name.
  std::vector<std::string> children(const std::string& name) const;
  bool isLeaf(const std::string& name) const { return children(name).empty(); }
  // Leaf queues below `name`, by name (none for a leaf itself, or a queue in a cycle).
  std::vector<std::string> leavesUnder(const std::string& name) const;
  // Queues that cannot take jobs, by name.
  const std::map<std::string, QueueProblem>& problems() const { return problems_; }
  const QueueProblem* problem(const std::string& name) const;
  // Every queue's name, sorted.
  std::vector<std::string> names() const;

 private:
  void findSpecProblems();
  void findBrokenLinks();
  void findOverGuaranteed();
  void inheritProblems();

  std::map<std::string, api::Validated<api::Queue>> queues_;
  std::map<std::string, std::vector<std::string>> children_;  // sorted
  std::map<std::string, QueueProblem> problems_;
};

// "org is not a leaf queue; its leaves are team-a, team-b": the rule that only leaf queues
// take jobs, in the words admission and the controllers use.
std::string notALeafMessage(const QueueForest& forest, const std::string& queue);
// "queue team-b does not admit namespace team-a (it admits team-b)".
std::string notAdmittedMessage(const api::Queue& queue, const std::string& ns);

}  // namespace troupe::admission
