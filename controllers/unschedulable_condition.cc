#include "controllers/unschedulable_condition.h"

#include "controllers/object_json.h"

namespace troupe::controllers {

std::optional<nlohmann::json> unschedulablePatch(const nlohmann::json& pod,
                                                 const std::string& message, std::int64_t now) {
  nlohmann::json conditions =
      pod.value(nlohmann::json::json_pointer("/status/conditions"), nlohmann::json::array());
  if (!conditions.is_array()) conditions = nlohmann::json::array();
  nlohmann::json condition = {
      {"type", kPodScheduledCondition}, {"status", "False"},
      {"lastProbeTime", nullptr},       {"lastTransitionTime", formatTimestamp(now)},
      {"reason", kUnschedulableReason}, {"message", message}};
  bool found = false;
  for (auto& old : conditions) {
    if (old.value("type", "") != kPodScheduledCondition) continue;
    if (old.value("status", "") == "False") {
      if (old.value("reason", "") == kUnschedulableReason && old.value("message", "") == message)
        return std::nullopt;
      condition["lastTransitionTime"] = old.value("lastTransitionTime", formatTimestamp(now));
    }
    old = condition;
    found = true;
  }
  if (!found) conditions.push_back(condition);
  // A merge patch replaces the list whole: the pod's other conditions go back as they were.
  return nlohmann::json{{"conditions", conditions}};
}

}  // namespace troupe::controllers
