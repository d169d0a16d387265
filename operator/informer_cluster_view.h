#pragma once

#include "admission/cluster_view.h"
#include "kube/object_cache.h"

namespace troupe::operator_runtime {

// What the admission webhook reads of the cluster: the operator's informer caches of Queues
// and Namespaces (every replica keeps them, leader or not).
class InformerClusterView : public admission::ClusterView {
 public:
  InformerClusterView(const kube::ObjectCache& queues, const kube::ObjectCache& namespaces)
      : queues_(queues), namespaces_(namespaces) {}

  std::vector<api::Validated<api::Queue>> queues() const override;
  std::optional<std::map<std::string, std::string>> namespaceLabels(
      const std::string& ns) const override;

 private:
  const kube::ObjectCache& queues_;
  const kube::ObjectCache& namespaces_;
};

}  // namespace troupe::operator_runtime
