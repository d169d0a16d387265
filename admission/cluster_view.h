#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/queue.h"
#include "api/validated.h"

// What admission reads of the cluster besides the object written: the Queues and the
// labels of namespaces. troupe serve reads its store, the operator's webhook its informer
// caches, troupe validate the manifests it was given.
namespace troupe::admission {

class ClusterView {
 public:
  virtual ~ClusterView() = default;
  // Every Queue, decoded and validated as stored: a queue that breaks a rule is listed
  // with its errors and what could be read of it. In any order.
  virtual std::vector<api::Validated<api::Queue>> queues() const = 0;
  // The labels of namespace `ns`; nullopt when the view does not know the namespace.
  virtual std::optional<std::map<std::string, std::string>> namespaceLabels(
      const std::string& ns) const = 0;
};

}  // namespace troupe::admission
