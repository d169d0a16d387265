#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace troupe::controllers {

// Sets condition `type` in a status.conditions array (creating the array). The
// lastTransitionTime changes only when the status does, as Kubernetes conventions ask;
// reason and message are always updated.
void setCondition(nlohmann::json& status, const std::string& type, bool value,
                  const std::string& reason, const std::string& message, std::int64_t now,
                  std::int64_t generation = 0);
// The condition of `type`, or null.
const nlohmann::json* findCondition(const nlohmann::json& status, const std::string& type);
bool conditionIsTrue(const nlohmann::json& status, const std::string& type);

}  // namespace troupe::controllers
