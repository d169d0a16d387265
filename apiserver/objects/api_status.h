#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "apiserver/registry/resource_kind.h"
#include "common/check.h"
#include "common/error.h"

// Kubernetes `Status` bodies, shaped as the real kube-apiserver writes them (see the
// recorded err-*.json responses), and ApiResult<T>: a value or such a Status. The handlers
// send them (handlers/json_response.h); ObjectService and its checks return them.
namespace troupe::apiserver {

struct ApiError {
  int code = 500;
  nlohmann::json status;  // a complete meta/v1 Status object
};

template <typename T>
class [[nodiscard]] ApiResult {
 public:
  ApiResult(T value) : state_(std::move(value)) {}         // NOLINT: implicit by design
  ApiResult(ApiError error) : state_(std::move(error)) {}  // NOLINT: implicit by design
  bool ok() const { return std::holds_alternative<T>(state_); }
  explicit operator bool() const { return ok(); }
  T& value() & {
    TROUPE_CHECK(ok(), "ApiResult::value() on an error");
    return std::get<T>(state_);
  }
  T&& value() && {
    TROUPE_CHECK(ok(), "ApiResult::value() on an error");
    return std::get<T>(std::move(state_));
  }
  T* operator->() { return &value(); }
  T& operator*() & { return value(); }
  const ApiError& error() const {
    TROUPE_CHECK(!ok(), "ApiResult::error() on a value");
    return std::get<ApiError>(state_);
  }

 private:
  std::variant<T, ApiError> state_;
};

struct Cause {
  std::string reason;  // "FieldValueInvalid", "FieldValueRequired", ...
  std::string message;
  std::string field;
};

// Generic Status with the given code, reason and message; `details` may be null.
ApiError statusError(int code, const std::string& reason, const std::string& message,
                     nlohmann::json details = nullptr);

// Resource-scoped errors: `kind` supplies the name in messages ("trainingjobs.troupe.dev")
// and the details' group and kind (the resource plural, as the real server does).
ApiError notFound(const ResourceKind& kind, const std::string& name);
ApiError alreadyExists(const ResourceKind& kind, const std::string& name);
ApiError conflict(const ResourceKind& kind, const std::string& name, const std::string& why);
ApiError staleConflict(const ResourceKind& kind, const std::string& name);
ApiError invalid(const ResourceKind& kind, const std::string& name,
                 const std::vector<Cause>& causes);
ApiError badRequest(const std::string& message);
ApiError gone(const std::string& message);
ApiError methodNotSupported(const std::string& verb, const std::string& resource);
// Maps a storage Error to a Status for `kind`/`name`.
ApiError fromStoreError(const Error& error, const ResourceKind& kind, const std::string& name);

// The Status{status: Success} some endpoints answer with (binding: 201).
nlohmann::json successStatus(int code, nlohmann::json details = nullptr);

}  // namespace troupe::apiserver
