#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/error.h"

namespace troupe::api {

// What a request was about, for the words of a Status body.
struct StatusTarget {
  std::string group;     // "troupe.dev"; empty for the core group
  std::string resource;  // plural: "trainingjobs"
  std::string kind;      // "TrainingJob"
  std::string name;      // object name; may be empty (lists, creates without a name)
};

// Kubernetes `Status` bodies (kind Status, apiVersion v1) in the shapes and words the real
// kube-apiserver uses, key order included. Render them with statusBody().
//
//   422 Invalid       `TrainingJob.troupe.dev "x" is invalid: [a, b]` with one cause per error
//   404 NotFound      `trainingjobs.troupe.dev "x" not found`
//   409 AlreadyExists `trainingjobs.troupe.dev "x" already exists`
//   409 Conflict      `Operation cannot be fulfilled on trainingjobs.troupe.dev "x": <why>`
//   400 BadRequest    the message as given
nlohmann::ordered_json invalidStatus(const StatusTarget& target, const std::vector<Error>& errors);
nlohmann::ordered_json notFoundStatus(const StatusTarget& target);
nlohmann::ordered_json alreadyExistsStatus(const StatusTarget& target);
nlohmann::ordered_json conflictStatus(const StatusTarget& target, std::string_view why = "");
nlohmann::ordered_json badRequestStatus(std::string_view message);
// 403 Forbidden `trainingjobs.troupe.dev "x" is forbidden: <why>`, as admission plugins
// answer; each error (its field and message) becomes a cause.
nlohmann::ordered_json forbiddenStatus(const StatusTarget& target, std::string_view why,
                                       const std::vector<Error>& errors = {});
// The body kube-apiserver sends for a create/update body that is not JSON; `body` is the
// request body (its first 30 bytes are quoted), `parse_error` what the parser said.
nlohmann::ordered_json unrecognizedBodyStatus(std::string_view kind, std::string_view parse_error,
                                              std::string_view body);

// Any Error as a Status: Invalid errors become a one-cause 422 about `target`; NotFound,
// AlreadyExists and Conflict use the messages above; everything else carries error.message.
nlohmann::ordered_json statusFromError(const Error& error, const StatusTarget& target);
// Several errors about one object (all Invalid): one 422 with every cause. Mixed codes fall
// back to the first error.
nlohmann::ordered_json statusFromErrors(const std::vector<Error>& errors,
                                        const StatusTarget& target);

// The HTTP status code and the Status reason for an ErrorCode.
int httpCode(ErrorCode code);
const char* statusReason(ErrorCode code);

// Compact JSON with Go's encoding/json escaping (<, >, & as \u003c, \u003e, \u0026), so a
// body matches the real server byte for byte.
std::string statusBody(const nlohmann::ordered_json& status);

// "trainingjobs.troupe.dev" / "pods", and "TrainingJob.troupe.dev" / "Pod".
std::string qualifiedResource(const StatusTarget& target);
std::string qualifiedKind(const StatusTarget& target);

}  // namespace troupe::api
