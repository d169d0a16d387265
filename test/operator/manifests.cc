#include "test/operator/manifests.h"

#include <fmt/format.h>

namespace troupe::operator_runtime::testing {

std::string queueYaml(const std::string& name, int guaranteed) {
  return fmt::format(R"(apiVersion: troupe.dev/v1alpha1
kind: Queue
metadata:
  name: {}
spec:
  resources:
    nvidia.com/gpu:
      guaranteed: "{}"
---
)",
                     name, guaranteed);
}

std::string containersYaml(int indent, int gpus) {
  const std::string pad(static_cast<std::size_t>(indent), ' ');
  return fmt::format(
      "{0}containers:\n{0}- name: trainer\n{0}  image: trainer:1\n{0}  resources:\n"
      "{0}    limits:\n{0}      nvidia.com/gpu: \"{1}\"\n",
      pad, gpus);
}

std::string jobYaml(const std::string& name, const std::string& queue, int replicas, int gpus,
                    const std::string& extra_spec, const std::string& annotations) {
  return fmt::format(R"(apiVersion: troupe.dev/v1alpha1
kind: TrainingJob
metadata:
  name: {}
  namespace: default
spec:
  queue: {}
  replicas: {}
{}  template:
    metadata:
      annotations:
        troupe.dev/sim-exit-code: "0"
{}    spec:
{}---
)",
                     name, queue, replicas, extra_spec, annotations, containersYaml(6, gpus));
}

std::string podGroupYaml(const std::string& name, const std::string& queue, int min_member) {
  return fmt::format(R"(apiVersion: troupe.dev/v1alpha1
kind: PodGroup
metadata:
  name: {}
  namespace: default
spec:
  minMember: {}
  queue: {}
---
)",
                     name, min_member, queue);
}

std::string plainPodYaml(const std::string& name, const std::map<std::string, std::string>& labels,
                         int gpus) {
  std::string label_lines;
  for (const auto& [key, value] : labels) label_lines += fmt::format("\n    {}: {}", key, value);
  return fmt::format(R"(apiVersion: v1
kind: Pod
metadata:
  name: {}
  namespace: default
  labels:{}
spec:
  schedulerName: troupe
{}---
)",
                     name, label_lines.empty() ? " {}" : label_lines, containersYaml(2, gpus));
}

}  // namespace troupe::operator_runtime::testing
