#include "kube/api_error.h"

#include <fmt/format.h>

namespace troupe::kube {

ErrorCode errorCodeFor(int http_status, std::string_view reason) {
  switch (http_status) {
    case 400: return ErrorCode::BadRequest;
    case 401: return ErrorCode::Unauthorized;
    case 403: return ErrorCode::Forbidden;
    case 404: return ErrorCode::NotFound;
    case 409: return reason == "AlreadyExists" ? ErrorCode::AlreadyExists : ErrorCode::Conflict;
    case 410: return ErrorCode::Gone;
    case 413: return ErrorCode::TooLarge;
    case 415: return ErrorCode::UnsupportedMedia;
    case 422: return ErrorCode::Invalid;
    case 429: return ErrorCode::TooManyRequests;
    case 503: return ErrorCode::Unavailable;
    case 504: return ErrorCode::Timeout;
    default: break;
  }
  // Statuses without a fixed code (a watch ERROR event) fall back on the reason.
  if (reason == "NotFound") return ErrorCode::NotFound;
  if (reason == "AlreadyExists") return ErrorCode::AlreadyExists;
  if (reason == "Conflict") return ErrorCode::Conflict;
  if (reason == "Expired" || reason == "Gone") return ErrorCode::Gone;
  if (reason == "Invalid") return ErrorCode::Invalid;
  if (reason == "Timeout") return ErrorCode::Timeout;
  if (reason == "TooManyRequests") return ErrorCode::TooManyRequests;
  return ErrorCode::Internal;
}

namespace {

std::string stringField(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return {};
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string{};
}

// Fills `error` from a decoded Status object. Unknown or mistyped fields are ignored: the
// error must be built whatever the server sent.
void fillFromStatus(ApiError& error, const nlohmann::json& status) {
  error.reason = stringField(status, "reason");
  error.message = stringField(status, "message");
  if (auto md = status.find("metadata"); md != status.end()) {
    error.continue_token = stringField(*md, "continue");
  }
  if (auto details = status.find("details"); details != status.end() && details->is_object()) {
    error.details_name = stringField(*details, "name");
    error.details_group = stringField(*details, "group");
    error.details_kind = stringField(*details, "kind");
    if (auto causes = details->find("causes"); causes != details->end() && causes->is_array()) {
      for (const auto& c : *causes) {
        error.causes.push_back(StatusCause{stringField(c, "reason"), stringField(c, "message"),
                                           stringField(c, "field")});
      }
    }
  }
  for (const auto& cause : error.causes) {
    if (!cause.field.empty() && cause.field != "<nil>") {
      error.field_path = cause.field;
      break;
    }
  }
}

}  // namespace

ApiError apiErrorFromResponse(int http_status, std::string_view body,
                              std::optional<std::chrono::seconds> retry_after) {
  ApiError error;
  error.http_status = http_status;
  error.retry_after = retry_after;
  auto status = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (status.is_object() && stringField(status, "kind") == "Status") {
    fillFromStatus(error, status);
  } else {
    // Not a Status (a plain-text 404 from the mux, a protobuf body): keep a printable prefix.
    std::string text;
    for (char c : body.substr(0, 256)) {
      text += (c >= 0x20 && c < 0x7f) ? c : '.';
    }
    while (!text.empty() && (text.back() == '.' || text.back() == ' ')) text.pop_back();
    error.message = text.empty() ? fmt::format("HTTP {}", http_status) : text;
  }
  error.code = errorCodeFor(http_status, error.reason);
  if (error.message.empty()) error.message = fmt::format("HTTP {}", http_status);
  return error;
}

ApiError apiErrorFromStatus(const nlohmann::json& status) {
  ApiError error;
  if (status.is_object()) {
    fillFromStatus(error, status);
    if (auto code = status.find("code"); code != status.end() && code->is_number_integer()) {
      error.http_status = code->get<int>();
    }
  }
  error.code = errorCodeFor(error.http_status, error.reason);
  if (error.message.empty()) error.message = "the server sent a Status without a message";
  return error;
}

ApiError transportError(ErrorCode code, std::string reason, std::string message) {
  ApiError error;
  error.code = code;
  error.reason = std::move(reason);
  error.message = std::move(message);
  return error;
}

}  // namespace troupe::kube
