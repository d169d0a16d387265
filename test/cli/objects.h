#pragma once

#include <nlohmann/json.hpp>

#include <string>

// Builders of the API objects the plugin reads, with only the fields it looks at.
namespace troupe::cli::testing {

inline nlohmann::json queue(const std::string& name, const std::string& parent, int guaranteed,
                            int allocated, nlohmann::json extra = nlohmann::json::object()) {
  nlohmann::json gpu = {{"guaranteed", std::to_string(guaranteed)}};
  gpu.update(extra);
  nlohmann::json q = {{"metadata", {{"name", name}}},
                      {"spec", {{"resources", {{"nvidia.com/gpu", gpu}}}}},
                      {"status", {{"allocated", {{"nvidia.com/gpu", std::to_string(allocated)}}}}}};
  if (!parent.empty()) q["spec"]["parent"] = parent;
  return q;
}

inline nlohmann::json trainingJob(const std::string& ns, const std::string& name,
                                  const std::string& queue, const std::string& phase,
                                  const std::string& priority_class, const std::string& queued_at,
                                  int replicas = 1, int gpus_per_pod = 8) {
  nlohmann::json container = {{"name", "t"},
                              {"resources", {{"limits", {{"nvidia.com/gpu", gpus_per_pod}}}}}};
  nlohmann::json tj = {
      {"metadata", {{"namespace", ns}, {"name", name}, {"creationTimestamp", queued_at}}},
      {"spec",
       {{"queue", queue},
        {"replicas", replicas},
        {"template", {{"spec", {{"containers", {container}}}}}}}},
      {"status", {{"queuedAt", queued_at}}}};
  if (!priority_class.empty()) tj["spec"]["priorityClassName"] = priority_class;
  if (!phase.empty()) tj["status"]["phase"] = phase;
  return tj;
}

inline nlohmann::json priorityClass(const std::string& name, int value) {
  return {{"metadata", {{"name", name}}}, {"value", value}};
}

}  // namespace troupe::cli::testing
