#include "controllers/conditions.h"

#include "controllers/object_json.h"

namespace troupe::controllers {

void setCondition(nlohmann::json& status, const std::string& type, bool value,
                  const std::string& reason, const std::string& message, std::int64_t now,
                  std::int64_t generation) {
  if (!status.contains("conditions") || !status["conditions"].is_array())
    status["conditions"] = nlohmann::json::array();
  const std::string text = value ? "True" : "False";
  for (auto& c : status["conditions"]) {
    if (c.value("type", "") != type) continue;
    if (c.value("status", "") != text) {
      c["status"] = text;
      c["lastTransitionTime"] = formatTimestamp(now);
    }
    c["reason"] = reason;
    c["message"] = message;
    if (generation > 0) c["observedGeneration"] = generation;
    return;
  }
  nlohmann::json c{{"type", type},
                   {"status", text},
                   {"reason", reason},
                   {"message", message},
                   {"lastTransitionTime", formatTimestamp(now)}};
  if (generation > 0) c["observedGeneration"] = generation;
  status["conditions"].push_back(std::move(c));
}

const nlohmann::json* findCondition(const nlohmann::json& status, const std::string& type) {
  if (!status.is_object() || !status.contains("conditions") || !status["conditions"].is_array())
    return nullptr;
  for (const auto& c : status["conditions"])
    if (c.value("type", "") == type) return &c;
  return nullptr;
}

bool conditionIsTrue(const nlohmann::json& status, const std::string& type) {
  const auto* c = findCondition(status, type);
  return c && c->value("status", "") == "True";
}

}  // namespace troupe::controllers
