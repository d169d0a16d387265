#include "operator/informer_cluster_view.h"

namespace troupe::operator_runtime {

std::vector<api::Validated<api::Queue>> InformerClusterView::queues() const {
  std::vector<api::Validated<api::Queue>> out;
  for (const auto& q : queues_.list()) out.push_back(api::decodeAndValidate<api::Queue>(*q));
  return out;
}

std::optional<std::map<std::string, std::string>> InformerClusterView::namespaceLabels(
    const std::string& ns) const {
  auto object = namespaces_.get(ns);
  if (!object) return std::nullopt;
  std::map<std::string, std::string> labels;
  const auto meta = object->find("metadata");
  if (meta == object->end() || !meta->is_object()) return labels;
  const auto found = meta->find("labels");
  if (found == meta->end() || !found->is_object()) return labels;
  for (auto it = found->begin(); it != found->end(); ++it)
    if (it->is_string()) labels[it.key()] = it->get<std::string>();
  return labels;
}

}  // namespace troupe::operator_runtime
