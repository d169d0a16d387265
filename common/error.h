#pragma once

#include <string>

namespace troupe {

// What kind of failure an Error is. The codes follow the Kubernetes Status reasons
// so that an Error can cross the API unchanged (api/status.h maps them).
enum class ErrorCode {
  Invalid,              // 422: a field breaks a rule; field_path names it
  BadRequest,           // 400: the body is not what was promised (bad JSON, bad YAML)
  NotFound,             // 404
  AlreadyExists,        // 409
  Conflict,             // 409: stale resourceVersion
  Gone,                 // 410: history compacted
  Unauthorized,         // 401
  Forbidden,            // 403
  TooLarge,             // 413
  UnsupportedMedia,     // 415
  TooManyRequests,      // 429
  Timeout,              // 504 / deadline passed
  Unavailable,          // 503 / connection dropped
  InsufficientStorage,  // 507: the disk is full or read-only; nothing was written
  Internal,             // 500: a bug or an I/O failure
};

// An expected failure, as a value. `field_path` uses Kubernetes field path syntax
// (`spec.resources[nvidia.com/gpu].limit`) and is empty when no field is to blame.
struct Error {
  ErrorCode code = ErrorCode::Internal;
  std::string field_path;
  std::string message;

  // "spec.replicas: Invalid value: 0: must be greater than or equal to 1" style.
  std::string describe() const {
    return field_path.empty() ? message : field_path + ": " + message;
  }
};

const char* errorCodeName(ErrorCode code);

inline const char* errorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::Invalid: return "Invalid";
    case ErrorCode::BadRequest: return "BadRequest";
    case ErrorCode::NotFound: return "NotFound";
    case ErrorCode::AlreadyExists: return "AlreadyExists";
    case ErrorCode::Conflict: return "Conflict";
    case ErrorCode::Gone: return "Gone";
    case ErrorCode::Unauthorized: return "Unauthorized";
    case ErrorCode::Forbidden: return "Forbidden";
    case ErrorCode::TooLarge: return "RequestEntityTooLarge";
    case ErrorCode::UnsupportedMedia: return "UnsupportedMediaType";
    case ErrorCode::TooManyRequests: return "TooManyRequests";
    case ErrorCode::Timeout: return "Timeout";
    case ErrorCode::Unavailable: return "ServiceUnavailable";
    case ErrorCode::InsufficientStorage: return "InsufficientStorage";
    case ErrorCode::Internal: return "InternalError";
  }
  return "InternalError";
}

}  // namespace troupe
