#include "admission/verdict.h"

#include <fmt/format.h>

namespace troupe::admission {

nlohmann::ordered_json Verdict::status(const api::StatusTarget& target) const {
  if (outcome == Outcome::Forbidden) {
    std::string why = errors.empty() ? std::string("refused by admission") : errors.front().message;
    // A Forbidden error's message starts with its type ("Forbidden: "); the Status message
    // says "is forbidden: " already.
    constexpr std::string_view kPrefix = "Forbidden: ";
    if (why.rfind(kPrefix, 0) == 0) why = why.substr(kPrefix.size());
    return api::forbiddenStatus(target, why, errors);
  }
  return api::invalidStatus(target, errors);
}

nlohmann::ordered_json deniedBy(std::string_view webhook, nlohmann::ordered_json status) {
  status["message"] = fmt::format("admission webhook \"{}\" denied the request: {}", webhook,
                                  status.value("message", ""));
  return status;
}

}  // namespace troupe::admission
