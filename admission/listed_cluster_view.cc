#include "admission/listed_cluster_view.h"

#include <utility>

namespace troupe::admission {

void ListedClusterView::addQueue(api::Validated<api::Queue> queue) {
  queues_.push_back(std::move(queue));
}

void ListedClusterView::addNamespace(const std::string& name,
                                     std::map<std::string, std::string> labels) {
  labels["kubernetes.io/metadata.name"] = name;
  namespaces_[name] = std::move(labels);
}

std::vector<api::Validated<api::Queue>> ListedClusterView::queues() const { return queues_; }

std::optional<std::map<std::string, std::string>> ListedClusterView::namespaceLabels(
    const std::string& ns) const {
  auto it = namespaces_.find(ns);
  if (it == namespaces_.end()) return std::nullopt;
  return it->second;
}

}  // namespace troupe::admission
