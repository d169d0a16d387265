#pragma once

#include <map>
#include <string>
#include <vector>

#include "admission/cluster_view.h"
#include "api/yaml.h"

// A ClusterView made of YAML: the Queues and Namespaces a test story starts from.
namespace troupe::admission::testing {

class FakeCluster : public ClusterView {
 public:
  // Queues as YAML documents ("name: x\nparent: y\n..." is too little: full manifests).
  void addQueue(const std::string& yaml, const std::string& created = "") {
    auto doc = api::parseYaml(yaml);
    if (!doc.ok()) throw std::runtime_error(doc.error().describe());
    if (!created.empty()) (*doc)["metadata"]["creationTimestamp"] = created;
    queues_.push_back(api::decodeAndValidate<api::Queue>(*doc));
  }
  void addNamespace(const std::string& name, std::map<std::string, std::string> labels = {}) {
    labels["kubernetes.io/metadata.name"] = name;
    namespaces_[name] = std::move(labels);
  }
  std::vector<api::Validated<api::Queue>> queues() const override { return queues_; }
  std::optional<std::map<std::string, std::string>> namespaceLabels(
      const std::string& ns) const override {
    auto it = namespaces_.find(ns);
    if (it == namespaces_.end()) return std::nullopt;
    return it->second;
  }

 private:
  std::vector<api::Validated<api::Queue>> queues_;
  std::map<std::string, std::map<std::string, std::string>> namespaces_;
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
