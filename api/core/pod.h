#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/condition.h"
#include "api/object_meta.h"
#include "api/resource_list.h"
#include "common/error.h"

namespace troupe::api::core {

struct Container {
  std::string name;
  std::string image;
  ResourceList requests;
  ResourceList limits;
};

// A node taint (in core/node.h's Node) and a pod's toleration of it.
struct Taint {
  std::string key;
  std::string value;
  std::string effect;  // NoSchedule, PreferNoSchedule, NoExecute
  friend bool operator==(const Taint&, const Taint&) = default;
};

struct Toleration {
  std::string key;                  // empty with operator Exists: tolerates everything
  std::string operator_ = "Equal";  // Equal or Exists
  std::string value;
  std::string effect;  // empty: every effect
  std::optional<int64_t> toleration_seconds;

  // Kubernetes' ToleratesTaint.
  bool tolerates(const Taint& taint) const;
};

// The tolerations at `path` of `parent` (a pod spec's, a GPUType's "spec.tolerations"), type
// errors appended; their JSON; and the rules kube-apiserver checks of them.
std::vector<Toleration> tolerationsFromJson(const nlohmann::json& parent, const std::string& path,
                                            std::vector<Error>& errors);
nlohmann::json tolerationToJson(const Toleration& toleration);
void validateTolerations(const std::vector<Toleration>& tolerations, const std::string& path,
                         std::vector<Error>& errors);

// One requirement of a node selector term: key In/NotIn/Exists/DoesNotExist/Gt/Lt values.
struct NodeSelectorRequirement {
  std::string key;
  std::string operator_;
  std::vector<std::string> values;

  bool matches(const std::map<std::string, std::string>& labels) const;
};

// Requirements ANDed; the terms of a node affinity are ORed.
struct NodeSelectorTerm {
  std::vector<NodeSelectorRequirement> match_expressions;
  std::vector<NodeSelectorRequirement> match_fields;  // metadata.name only, in practice

  bool matches(const std::map<std::string, std::string>& labels,
               const std::string& node_name) const;
};

struct PodSpec {
  std::vector<Container> containers;
  std::vector<Container> init_containers;
  ResourceList overhead;
  std::map<std::string, std::string> node_selector;
  std::vector<Toleration> tolerations;
  // requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms; empty: no constraint.
  std::vector<NodeSelectorTerm> required_node_affinity;
  std::string scheduler_name;
  std::string node_name;
  std::string priority_class_name;
  std::optional<int32_t> priority;
  std::string restart_policy;

  // Decodes a pod spec found at `path` ("spec", "spec.template.spec"), appending type errors.
  static PodSpec fromJson(const nlohmann::json& spec, const std::string& path,
                          std::vector<Error>& errors);

  // What the pod asks of a node, as the scheduler counts it: per resource, the larger of
  // the sum over containers and the largest init container, plus overhead. A container
  // with a limit but no request requests its limit (the apiserver's defaulting).
  Result<ResourceList> requests() const;
  // Limits summed over containers.
  Result<ResourceList> limits() const;
  // Whether a node with these labels, name and taints passes nodeSelector, required node
  // affinity and NoSchedule/NoExecute taints.
  bool fitsNode(const std::map<std::string, std::string>& labels, const std::string& node_name,
                const std::vector<Taint>& taints) const;
};

// Container resource quantities and names, as the apiserver checks them for a pod.
void validatePodSpec(const PodSpec& spec, const std::string& path, std::vector<Error>& errors);

struct Pod {
  ObjectMeta metadata;
  PodSpec spec;
  std::string phase;  // Pending, Running, Succeeded, Failed, Unknown
  std::vector<Condition> conditions;
  std::string start_time;

  static Pod fromJson(const nlohmann::json& pod, std::vector<Error>& errors);
  // The checks kube-apiserver makes of a new pod, for the fields Troupe reads: metadata,
  // containers and their resources, tolerations.
  std::vector<Error> validate() const;

  bool isTerminal() const { return phase == "Succeeded" || phase == "Failed"; }
  bool isBound() const { return !spec.node_name.empty(); }
  // Ready condition True.
  bool isReady() const;
};

}  // namespace troupe::api::core
