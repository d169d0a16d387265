#include "api/status.h"

#include <fmt/format.h>

#include <set>

#include "api/field_error.h"

namespace troupe::api {
namespace {

nlohmann::ordered_json base(std::string_view reason, std::string_view message) {
  nlohmann::ordered_json status;
  status["kind"] = "Status";
  status["apiVersion"] = "v1";
  status["metadata"] = nlohmann::ordered_json::object();
  status["status"] = "Failure";
  status["message"] = message;
  status["reason"] = reason;
  return status;
}

nlohmann::ordered_json details(const StatusTarget& target, bool resource_kind) {
  nlohmann::ordered_json d = nlohmann::ordered_json::object();
  if (!target.name.empty()) d["name"] = target.name;
  if (!target.group.empty()) d["group"] = target.group;
  std::string kind = resource_kind ? target.resource : target.kind;
  if (!kind.empty()) d["kind"] = kind;
  return d;
}

nlohmann::ordered_json finish(nlohmann::ordered_json status, int code,
                              nlohmann::ordered_json detail) {
  if (!detail.empty()) status["details"] = std::move(detail);
  status["code"] = code;
  return status;
}

}  // namespace

std::string qualifiedResource(const StatusTarget& target) {
  return target.group.empty() ? target.resource : target.resource + "." + target.group;
}

std::string qualifiedKind(const StatusTarget& target) {
  return target.group.empty() ? target.kind : target.kind + "." + target.group;
}

nlohmann::ordered_json invalidStatus(const StatusTarget& target, const std::vector<Error>& errors) {
  nlohmann::ordered_json causes = nlohmann::ordered_json::array();
  std::vector<std::string> messages;
  std::set<std::string> seen;
  for (const auto& error : errors) {
    nlohmann::ordered_json cause;
    cause["reason"] = causeReason(fieldErrorType(error));
    cause["message"] = error.message;
    cause["field"] = error.field_path.empty() ? "<nil>" : error.field_path;
    causes.push_back(std::move(cause));
    std::string text =
        fmt::format("{}: {}", error.field_path.empty() ? "<nil>" : error.field_path, error.message);
    // Kubernetes' aggregate error drops repeated messages.
    if (seen.insert(text).second) messages.push_back(std::move(text));
  }
  std::string message =
      fmt::format("{} {} is invalid", qualifiedKind(target), goQuote(target.name));
  if (messages.size() == 1) {
    message += ": " + messages[0];
  } else if (messages.size() > 1) {
    message += ": [";
    for (size_t i = 0; i < messages.size(); ++i) {
      if (i > 0) message += ", ";
      message += messages[i];
    }
    message += "]";
  }
  auto status = base("Invalid", message);
  auto d = details(target, false);
  if (!causes.empty()) d["causes"] = std::move(causes);
  return finish(std::move(status), 422, std::move(d));
}

nlohmann::ordered_json forbiddenStatus(const StatusTarget& target, std::string_view why,
                                       const std::vector<Error>& errors) {
  auto message =
      fmt::format("{} {} is forbidden: {}", qualifiedResource(target), goQuote(target.name), why);
  auto d = details(target, true);
  if (!errors.empty()) {
    nlohmann::ordered_json causes = nlohmann::ordered_json::array();
    for (const auto& error : errors) {
      nlohmann::ordered_json cause;
      cause["reason"] = causeReason(fieldErrorType(error));
      cause["message"] = error.message;
      cause["field"] = error.field_path.empty() ? "<nil>" : error.field_path;
      causes.push_back(std::move(cause));
    }
    d["causes"] = std::move(causes);
  }
  return finish(base("Forbidden", message), 403, std::move(d));
}

nlohmann::ordered_json notFoundStatus(const StatusTarget& target) {
  auto message = fmt::format("{} {} not found", qualifiedResource(target), goQuote(target.name));
  return finish(base("NotFound", message), 404, details(target, true));
}

nlohmann::ordered_json alreadyExistsStatus(const StatusTarget& target) {
  auto message =
      fmt::format("{} {} already exists", qualifiedResource(target), goQuote(target.name));
  return finish(base("AlreadyExists", message), 409, details(target, true));
}

nlohmann::ordered_json conflictStatus(const StatusTarget& target, std::string_view why) {
  std::string reason_text =
      why.empty() ? std::string(
                        "the object has been modified; please apply your changes to the "
                        "latest version and try again")
                  : std::string(why);
  auto message = fmt::format("Operation cannot be fulfilled on {} {}: {}",
                             qualifiedResource(target), goQuote(target.name), reason_text);
  return finish(base("Conflict", message), 409, details(target, true));
}

nlohmann::ordered_json badRequestStatus(std::string_view message) {
  return finish(base("BadRequest", message), 400, {});
}

nlohmann::ordered_json unrecognizedBodyStatus(std::string_view kind, std::string_view parse_error,
                                              std::string_view body) {
  std::string snippet =
      body.size() > 30 ? std::string(body.substr(0, 30)) + " ..." : std::string(body);
  return badRequestStatus(fmt::format(
      "the object provided is unrecognized (must be of type {}): couldn't get version/kind; "
      "json parse error: {} ({})",
      kind, parse_error, snippet));
}

int httpCode(ErrorCode code) {
  switch (code) {
    case ErrorCode::Invalid: return 422;
    case ErrorCode::BadRequest: return 400;
    case ErrorCode::NotFound: return 404;
    case ErrorCode::AlreadyExists: return 409;
    case ErrorCode::Conflict: return 409;
    case ErrorCode::Gone: return 410;
    case ErrorCode::Unauthorized: return 401;
    case ErrorCode::Forbidden: return 403;
    case ErrorCode::TooLarge: return 413;
    case ErrorCode::UnsupportedMedia: return 415;
    case ErrorCode::TooManyRequests: return 429;
    case ErrorCode::Timeout: return 504;
    case ErrorCode::Unavailable: return 503;
    case ErrorCode::InsufficientStorage: return 507;
    case ErrorCode::Internal: return 500;
  }
  return 500;
}

const char* statusReason(ErrorCode code) {
  if (code == ErrorCode::Gone) return "Expired";
  return errorCodeName(code);
}

nlohmann::ordered_json statusFromError(const Error& error, const StatusTarget& target) {
  switch (error.code) {
    case ErrorCode::Invalid: return invalidStatus(target, {error});
    case ErrorCode::NotFound: return notFoundStatus(target);
    case ErrorCode::AlreadyExists: return alreadyExistsStatus(target);
    case ErrorCode::Conflict: return conflictStatus(target, error.message);
    default: {
      int code = httpCode(error.code);
      return finish(base(statusReason(error.code), error.describe()), code, {});
    }
  }
}

nlohmann::ordered_json statusFromErrors(const std::vector<Error>& errors,
                                        const StatusTarget& target) {
  if (errors.empty()) return invalidStatus(target, errors);
  for (const auto& error : errors) {
    if (error.code != ErrorCode::Invalid) return statusFromError(errors.front(), target);
  }
  return invalidStatus(target, errors);
}

std::string statusBody(const nlohmann::ordered_json& status) {
  std::string raw = status.dump();
  std::string out;
  out.reserve(raw.size() + 16);
  // '<', '>' and '&' can only occur inside JSON strings, so replacing them is safe.
  for (char c : raw) {
    switch (c) {
      case '<': out += "\\u003c"; break;
      case '>': out += "\\u003e"; break;
      case '&': out += "\\u0026"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace troupe::api
