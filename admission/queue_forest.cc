#include "admission/queue_forest.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "api/field_error.h"

namespace troupe::admission {

QueueForest::QueueForest(std::vector<api::Validated<api::Queue>> queues) {
  for (auto& q : queues) {
    std::string name = q.object.metadata.name;
    queues_.insert_or_assign(std::move(name), std::move(q));
  }
  for (const auto& [name, q] : queues_) {
    const std::string& parent = q.object.spec.parent;
    if (!parent.empty()) children_[parent].push_back(name);  // map order: sorted
  }
  findSpecProblems();
  findBrokenLinks();
  findOverGuaranteed();
  inheritProblems();
}

const api::Queue* QueueForest::find(const std::string& name) const {
  auto it = queues_.find(name);
  return it == queues_.end() ? nullptr : &it->second.object;
}

std::vector<std::string> QueueForest::children(const std::string& name) const {
  auto it = children_.find(name);
  return it == children_.end() ? std::vector<std::string>{} : it->second;
}

std::vector<std::string> QueueForest::leavesUnder(const std::string& name) const {
  std::set<std::string> leaves;
  std::set<std::string> seen{name};
  std::vector<std::string> stack = children(name);
  while (!stack.empty()) {
    std::string cur = std::move(stack.back());
    stack.pop_back();
    if (!seen.insert(cur).second) continue;
    auto below = children(cur);
    if (below.empty()) leaves.insert(cur);
    stack.insert(stack.end(), below.begin(), below.end());
  }
  return {leaves.begin(), leaves.end()};
}

const QueueProblem* QueueForest::problem(const std::string& name) const {
  auto it = problems_.find(name);
  return it == problems_.end() ? nullptr : &it->second;
}

std::vector<std::string> QueueForest::names() const {
  std::vector<std::string> out;
  for (const auto& [name, q] : queues_) out.push_back(name);
  return out;
}

void QueueForest::findSpecProblems() {
  for (const auto& [name, q] : queues_)
    if (!q.ok()) problems_[name] = {std::string(kQueueInvalidSpec), q.errors.front()};
}

void QueueForest::findBrokenLinks() {
  for (const auto& [name, q] : queues_) {
    if (problems_.contains(name)) continue;
    const std::string& parent = q.object.spec.parent;
    if (parent.empty()) continue;
    if (!queues_.contains(parent)) {
      problems_[name] = {std::string(kQueueParentNotFound), api::notFound("spec.parent", parent)};
      continue;
    }
    // Walk up; coming back here means a cycle.
    std::vector<std::string> path{name};
    std::set<std::string> seen{name};
    std::string cur = parent;
    while (!cur.empty() && queues_.contains(cur)) {
      path.push_back(cur);
      if (cur == name) {
        problems_[name] = {std::string(kQueueCycle),
                           api::invalid("spec.parent", parent,
                                        fmt::format("the queue would be its own ancestor: {}",
                                                    fmt::join(path, " -> ")))};
        break;
      }
      if (!seen.insert(cur).second) break;  // a cycle above, not through this queue
      cur = queues_.at(cur).object.spec.parent;
    }
  }
}

void QueueForest::findOverGuaranteed() {
  for (const auto& [parent_name, kids] : children_) {
    auto parent = queues_.find(parent_name);
    if (parent == queues_.end()) continue;
    if (auto p = problems_.find(parent_name);
        p != problems_.end() && p->second.reason == kQueueInvalidSpec)
      continue;  // its guarantees cannot be read
    // Those created first keep their place; a queue without a creation time (one being
    // created) comes last.
    std::vector<const api::Queue*> order;
    for (const auto& kid : kids) {
      if (problems_.contains(kid)) continue;
      order.push_back(&queues_.at(kid).object);
    }
    std::sort(order.begin(), order.end(), [](const api::Queue* a, const api::Queue* b) {
      const auto& ta = a->metadata.creation_timestamp;
      const auto& tb = b->metadata.creation_timestamp;
      if (ta.empty() != tb.empty()) return tb.empty();
      if (ta != tb) return ta < tb;
      return a->metadata.name < b->metadata.name;
    });
    const auto own = parent->second.object.spec.quotasByResource();
    std::map<std::string, api::Quantity> sum;
    for (const api::Queue* kid : order) {
      std::optional<QueueProblem> over;
      std::map<std::string, api::Quantity> next = sum;
      for (const auto& [resource, quota] : kid->spec.quotasByResource()) {
        if (!quota.guaranteed || quota.guaranteed->isZero()) continue;
        auto total = next[resource].plus(*quota.guaranteed, resource);
        auto it = own.find(resource);
        api::Quantity limit = it == own.end() ? api::Quantity() : it->second.guaranteedOrZero();
        if (!total || *total > limit) {
          std::string total_text = total ? total->toString() : "more than int64 holds";
          over = QueueProblem{
              std::string(kQueueGuaranteeExceedsParent),
              api::invalid(
                  kid->spec.guaranteedPath(resource), quota.guaranteed->toString(),
                  fmt::format("the guarantees of {}'s children would add up to {} {}, more "
                              "than {}'s {}",
                              parent_name, total_text, resource, parent_name, limit.toString()))};
          break;
        }
        next[resource] = *total;
      }
      if (over) {
        problems_[kid->metadata.name] = std::move(*over);
      } else {
        sum = std::move(next);
      }
    }
  }
}

void QueueForest::inheritProblems() {
  for (const auto& [name, q] : queues_) {
    if (problems_.contains(name)) continue;
    std::set<std::string> seen{name};
    std::string cur = q.object.spec.parent;
    while (!cur.empty() && seen.insert(cur).second) {
      if (auto p = problems_.find(cur);
          p != problems_.end() && p->second.reason != kQueueParentNotReady) {
        problems_[name] = {
            std::string(kQueueParentNotReady),
            api::invalid("spec.parent", q.object.spec.parent,
                         fmt::format("queue {} cannot take jobs ({})", cur, p->second.reason))};
        break;
      }
      auto it = queues_.find(cur);
      if (it == queues_.end()) break;
      cur = it->second.object.spec.parent;
    }
  }
}

std::string notALeafMessage(const QueueForest& forest, const std::string& queue) {
  auto leaves = forest.leavesUnder(queue);
  if (leaves.empty()) return fmt::format("{} is not a leaf queue", queue);
  return fmt::format("{} is not a leaf queue; its leaves are {}", queue, fmt::join(leaves, ", "));
}

std::string notAdmittedMessage(const api::Queue& queue, const std::string& ns) {
  return fmt::format("queue {} does not admit namespace {} (it admits {})", queue.metadata.name, ns,
                     queue.spec.describeNamespaces());
}

}  // namespace troupe::admission
