#pragma once

#include <map>
#include <string>

// The YAML the end-to-end tests apply with kubectl: Queues, TrainingJobs, PodGroups and
// plain pods asking for GPUs, in namespace "default". Each document ends with "---" so that
// several concatenate into one apply.
namespace troupe::operator_runtime::testing {

// A Queue guaranteed `guaranteed` GPUs.
std::string queueYaml(const std::string& name, int guaranteed);

// One container asking for `gpus` GPUs, as the lines of a pod spec indented by `indent`.
std::string containersYaml(int indent, int gpus);

// A TrainingJob of `replicas` pods of `gpus` GPUs whose pods exit 0 (simulated kubelets);
// `extra_spec` (indented by 2) adds to its spec, `annotations` (indented by 8) to its pods'.
std::string jobYaml(const std::string& name, const std::string& queue, int replicas, int gpus,
                    const std::string& extra_spec = "", const std::string& annotations = "");

// A PodGroup of at least `min_member` pods in `queue`.
std::string podGroupYaml(const std::string& name, const std::string& queue, int min_member);

// A plain pod asking for Troupe, with these labels and GPUs.
std::string plainPodYaml(const std::string& name, const std::map<std::string, std::string>& labels,
                         int gpus);

}  // namespace troupe::operator_runtime::testing
