#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "common/check.h"
#include "common/error.h"

// Errors from the Kubernetes API as values. An ApiError is a troupe::Error (so it can be
// returned wherever a Result<T> is expected, sliced to code/field_path/message) that also
// keeps everything the server's `Status` body said: HTTP code, reason, causes with their
// field paths, and the Retry-After the server asked for.
namespace troupe::kube {

// One entry of Status.details.causes: `field` is a Kubernetes field path ("spec.replicas",
// ".spec.replicas" for apply conflicts, "<nil>" when no field is to blame).
struct StatusCause {
  std::string reason;  // FieldValueInvalid, FieldValueRequired, FieldManagerConflict, ...
  std::string message;
  std::string field;
};

struct ApiError : Error {
  int http_status = 0;  // 0: no HTTP response at all (connection, TLS, timeout)
  std::string reason;   // Status.reason ("NotFound", "AlreadyExists", "Expired", ...)
  std::vector<StatusCause> causes;
  std::string details_name;  // Status.details.name / group / kind, when present
  std::string details_group;
  std::string details_kind;
  // Status.metadata.continue of a 410 on a paged list: an inconsistent continuation.
  std::string continue_token;
  std::optional<std::chrono::seconds> retry_after;  // from the Retry-After header

  bool isNotFound() const { return code == ErrorCode::NotFound; }
  bool isAlreadyExists() const { return code == ErrorCode::AlreadyExists; }
  // A stale resourceVersion (or an apply field-manager conflict): re-read and try again.
  bool isConflict() const { return code == ErrorCode::Conflict; }
  // 410: the resourceVersion or continue token is too old; relist.
  bool isGone() const { return code == ErrorCode::Gone; }
  // No HTTP answer (connect, TLS, reset, deadline): the request may not have reached the server.
  bool isTransport() const { return http_status == 0; }
};

// Builds the ApiError for a non-2xx answer. A body that is a `Status` object gives code,
// reason, message and causes; any other body (the plain "404 page not found", protobuf)
// becomes the message, with the code derived from the HTTP status alone.
ApiError apiErrorFromResponse(int http_status, std::string_view body,
                              std::optional<std::chrono::seconds> retry_after = std::nullopt);
// Builds the ApiError for a `Status` object met outside an HTTP error (a watch ERROR event).
ApiError apiErrorFromStatus(const nlohmann::json& status);
// A failure below HTTP: `code` is Unavailable or Timeout, `reason` names the stage.
ApiError transportError(ErrorCode code, std::string reason, std::string message);
// The ErrorCode for an HTTP status and Status.reason: 409 AlreadyExists vs Conflict, 410 Gone.
ErrorCode errorCodeFor(int http_status, std::string_view reason);

// ApiResult<T>: a T or an ApiError; the same shape as troupe::Result<T>. `return r.error();`
// converts into a troupe::Result of any type.
template <typename T>
class [[nodiscard]] ApiResult {
 public:
  ApiResult(T value) : state_(std::move(value)) {}         // NOLINT: implicit by design
  ApiResult(ApiError error) : state_(std::move(error)) {}  // NOLINT: implicit by design

  bool ok() const { return std::holds_alternative<T>(state_); }
  explicit operator bool() const { return ok(); }

  T& value() & {
    TROUPE_CHECK(ok(), "ApiResult::value() on an error: {}", std::get<ApiError>(state_).describe());
    return std::get<T>(state_);
  }
  const T& value() const& {
    TROUPE_CHECK(ok(), "ApiResult::value() on an error: {}", std::get<ApiError>(state_).describe());
    return std::get<T>(state_);
  }
  T&& value() && {
    TROUPE_CHECK(ok(), "ApiResult::value() on an error: {}", std::get<ApiError>(state_).describe());
    return std::get<T>(std::move(state_));
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const ApiError& error() const {
    TROUPE_CHECK(!ok(), "ApiResult::error() on a value");
    return std::get<ApiError>(state_);
  }

 private:
  std::variant<T, ApiError> state_;
};

template <>
class [[nodiscard]] ApiResult<void> {
 public:
  ApiResult() = default;
  ApiResult(ApiError error) : error_(std::move(error)), ok_(false) {}  // NOLINT: implicit

  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const ApiError& error() const {
    TROUPE_CHECK(!ok_, "ApiResult<void>::error() on success");
    return error_;
  }

 private:
  ApiError error_;
  bool ok_ = true;
};

}  // namespace troupe::kube
