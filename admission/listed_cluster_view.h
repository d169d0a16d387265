#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "admission/cluster_view.h"
#include "api/queue.h"
#include "api/validated.h"

// A ClusterView of the Queues and Namespaces it was handed, and no others: troupe validate
// hands it the manifests it reads, in order; tests, the cluster a story starts from.
namespace troupe::admission {

class ListedClusterView : public ClusterView {
 public:
  void addQueue(api::Validated<api::Queue> queue);
  // The namespace's labels gain kubernetes.io/metadata.name, as the API server sets it.
  void addNamespace(const std::string& name, std::map<std::string, std::string> labels = {});

  std::vector<api::Validated<api::Queue>> queues() const override;
  std::optional<std::map<std::string, std::string>> namespaceLabels(
      const std::string& ns) const override;

 private:
  std::vector<api::Validated<api::Queue>> queues_;
  std::map<std::string, std::map<std::string, std::string>> namespaces_;
};

}  // namespace troupe::admission
