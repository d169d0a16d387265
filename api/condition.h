#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/error.h"

namespace troupe::api {

// A status condition as Kubernetes API conventions define it (metav1.Condition).
struct Condition {
  std::string type;
  std::string status;  // True, False, Unknown
  std::string reason;
  std::string message;
  std::string last_transition_time;  // RFC 3339
  int64_t observed_generation = 0;

  friend bool operator==(const Condition&, const Condition&) = default;

  static std::vector<Condition> listFromJson(const nlohmann::json& parent, const std::string& path,
                                             std::vector<Error>& errors);
  nlohmann::json toJson() const;
};

nlohmann::json conditionsToJson(const std::vector<Condition>& conditions);
// The condition of `type`, or nullptr.
const Condition* findCondition(const std::vector<Condition>& conditions, const std::string& type);
// Sets a condition the way controllers should: lastTransitionTime changes only when the
// status changes. `now` is an RFC 3339 timestamp. Returns true if anything changed.
bool setCondition(std::vector<Condition>& conditions, Condition condition, const std::string& now);
// Checks types are unique and statuses are True/False/Unknown.
void validateConditions(const std::vector<Condition>& conditions, const std::string& path,
                        std::vector<Error>& errors);

}  // namespace troupe::api
