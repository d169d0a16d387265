#include "controllers/gang_admissibility.h"

#include <fmt/format.h>

#include "controllers/object_json.h"
#include "controllers/queue_tree.h"

namespace troupe::controllers {

GangAdmissibility::GangAdmissibility(const ObjectList& queues, const ObjectList& namespaces)
    : forest_(queueForest(queues)) {
  for (const auto& name : forest_.names())
    restricts_namespaces_ |= !forest_.find(name)->spec.admitsEveryNamespace();
  if (!restricts_namespaces_) return;
  for (const auto& ns : namespaces) {
    auto& labels = namespace_labels_[nameOf(ns)];
    const auto found = ns.find("metadata");
    if (found == ns.end() || !found->is_object()) continue;
    const auto l = found->find("labels");
    if (l == found->end() || !l->is_object()) continue;
    for (auto it = l->begin(); it != l->end(); ++it)
      if (it->is_string()) labels[it.key()] = it->get<std::string>();
  }
}

std::optional<std::string> GangAdmissibility::whyNot(const std::string& queue,
                                                     const std::string& ns) const {
  const api::Queue* q = forest_.find(queue);
  if (q == nullptr) return std::nullopt;
  if (const admission::QueueProblem* p = forest_.problem(queue))
    return fmt::format("queue {} cannot take jobs ({}): {}", queue, p->reason, p->error.describe());
  if (!forest_.isLeaf(queue)) return admission::notALeafMessage(forest_, queue);
  if (q->spec.admitsEveryNamespace()) return std::nullopt;
  auto labels = namespace_labels_.find(ns);
  if (q->spec.admitsNamespace(ns, labels == namespace_labels_.end() ? nullptr : &labels->second))
    return std::nullopt;
  return admission::notAdmittedMessage(*q, ns);
}

}  // namespace troupe::controllers
