#include "api/condition.h"

#include "api/field_error.h"
#include "api/json_fields.h"

namespace troupe::api {

using nlohmann::json;

std::vector<Condition> Condition::listFromJson(const json& parent, const std::string& path,
                                               std::vector<Error>& errors) {
  JsonFields f(errors);
  std::vector<Condition> out;
  const json* list = f.array(parent, "conditions", path);
  if (list == nullptr) return out;
  for (size_t i = 0; i < list->size(); ++i) {
    const json& c = (*list)[i];
    std::string p = indexPath(path, i);
    if (!c.is_object()) {
      f.typeError(p, c, "object");
      continue;
    }
    Condition cond;
    cond.type = f.string(c, "type", p + ".type").value_or("");
    cond.status = f.string(c, "status", p + ".status").value_or("");
    cond.reason = f.string(c, "reason", p + ".reason").value_or("");
    cond.message = f.string(c, "message", p + ".message").value_or("");
    cond.last_transition_time =
        f.string(c, "lastTransitionTime", p + ".lastTransitionTime").value_or("");
    cond.observed_generation =
        f.int64(c, "observedGeneration", p + ".observedGeneration").value_or(0);
    out.push_back(std::move(cond));
  }
  return out;
}

json Condition::toJson() const {
  json out = {{"type", type}, {"status", status}};
  if (!reason.empty()) out["reason"] = reason;
  if (!message.empty()) out["message"] = message;
  if (!last_transition_time.empty()) out["lastTransitionTime"] = last_transition_time;
  if (observed_generation != 0) out["observedGeneration"] = observed_generation;
  return out;
}

json conditionsToJson(const std::vector<Condition>& conditions) {
  json out = json::array();
  for (const auto& c : conditions) out.push_back(c.toJson());
  return out;
}

const Condition* findCondition(const std::vector<Condition>& conditions, const std::string& type) {
  for (const auto& c : conditions)
    if (c.type == type) return &c;
  return nullptr;
}

bool setCondition(std::vector<Condition>& conditions, Condition condition, const std::string& now) {
  for (auto& existing : conditions) {
    if (existing.type != condition.type) continue;
    condition.last_transition_time =
        existing.status == condition.status ? existing.last_transition_time : now;
    if (existing == condition) return false;
    existing = std::move(condition);
    return true;
  }
  condition.last_transition_time = now;
  conditions.push_back(std::move(condition));
  return true;
}

void validateConditions(const std::vector<Condition>& conditions, const std::string& path,
                        std::vector<Error>& errors) {
  for (size_t i = 0; i < conditions.size(); ++i) {
    const auto& c = conditions[i];
    std::string p = indexPath(path, i);
    if (c.type.empty()) errors.push_back(required(p + ".type"));
    if (c.status != "True" && c.status != "False" && c.status != "Unknown") {
      if (c.status.empty()) {
        errors.push_back(required(p + ".status"));
      } else {
        errors.push_back(notSupported(p + ".status", c.status, {"True", "False", "Unknown"}));
      }
    }
    for (size_t j = 0; j < i; ++j) {
      if (conditions[j].type == c.type && !c.type.empty()) {
        errors.push_back(duplicate(p, json{{"type", c.type}}));
        break;
      }
    }
  }
}

}  // namespace troupe::api
