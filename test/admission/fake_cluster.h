#pragma once

#include <stdexcept>
#include <string>

#include "admission/listed_cluster_view.h"
#include "api/yaml.h"

// A ClusterView made of YAML: the Queues and Namespaces a test story starts from.
namespace troupe::admission::testing {

class FakeCluster : public ListedClusterView {
 public:
  using ListedClusterView::addQueue;
  // Queues as YAML documents ("name: x\nparent: y\n..." is too little: full manifests).
  void addQueue(const std::string& yaml, const std::string& created = "") {
    auto doc = api::parseYaml(yaml);
    if (!doc.ok()) throw std::runtime_error(doc.error().describe());
    if (!created.empty()) (*doc)["metadata"]["creationTimestamp"] = created;
    addQueue(api::decodeAndValidate<api::Queue>(*doc));
  }
};

// A Queue manifest: name, parent (may be empty), GPUs guaranteed, and extra spec lines.
inline std::string queueYaml(const std::string& name, const std::string& parent, int gpus,
                             const std::string& extra = "") {
  std::string out = "apiVersion: troupe.dev/v1alpha1\nkind: Queue\nmetadata: {name: " + name +
                    "}\nspec:\n  resources: {nvidia.com/gpu: {guaranteed: " + std::to_string(gpus) +
                    "}}\n";
  if (!parent.empty()) out += "  parent: " + parent + "\n";
  return out + extra;
}

}  // namespace troupe::admission::testing
