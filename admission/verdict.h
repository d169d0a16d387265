#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/status.h"
#include "common/error.h"

namespace troupe::admission {

// Names of the validating admission webhooks the chart registers (helm/troupe), which
// troupe serve also uses for the same checks so that both modes answer in the same words:
// one for Troupe's kinds, one for pods that name a queue.
inline constexpr std::string_view kWebhookName = "admission.troupe.dev";
inline constexpr std::string_view kPodWebhookName = "pods.admission.troupe.dev";

// What admission decided about one write.
struct Verdict {
  enum class Outcome { Allowed, Invalid, Forbidden };
  Outcome outcome = Outcome::Allowed;
  // Invalid: every rule broken, with its field. Forbidden: the reason, with its field.
  std::vector<Error> errors;

  bool allowed() const { return outcome == Outcome::Allowed; }
  int code() const {
    return outcome == Outcome::Forbidden ? 403 : outcome == Outcome::Invalid ? 422 : 200;
  }
  // The Status a webhook answers with (422 Invalid with every cause, or 403 Forbidden).
  nlohmann::ordered_json status(const api::StatusTarget& target) const;
};

// What kube-apiserver makes of a webhook's refusal: the same Status, its message prefixed
// with `admission webhook "<name>" denied the request: `.
nlohmann::ordered_json deniedBy(std::string_view webhook, nlohmann::ordered_json status);

}  // namespace troupe::admission
