#pragma once

#include <utility>
#include <variant>

#include "common/check.h"
#include "common/error.h"

namespace troupe {

// Result<T> holds a T or an Error. GCC 12 offers std::expected only under C++23, so
// this is a small look-alike with the same spirit: expected failures are values,
// and reading the wrong alternative is a broken invariant that stops loudly.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}      // NOLINT: implicit by design
  Result(Error error) : state_(std::move(error)) {}  // NOLINT: implicit by design

  bool ok() const { return std::holds_alternative<T>(state_); }
  explicit operator bool() const { return ok(); }

  T& value() & {
    TROUPE_CHECK(ok(), "Result::value() on an error: {}", std::get<Error>(state_).describe());
    return std::get<T>(state_);
  }
  const T& value() const& {
    TROUPE_CHECK(ok(), "Result::value() on an error: {}", std::get<Error>(state_).describe());
    return std::get<T>(state_);
  }
  T&& value() && {
    TROUPE_CHECK(ok(), "Result::value() on an error: {}", std::get<Error>(state_).describe());
    return std::get<T>(std::move(state_));
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const Error& error() const {
    TROUPE_CHECK(!ok(), "Result::error() on a value");
    return std::get<Error>(state_);
  }

 private:
  std::variant<T, Error> state_;
};

// Result<void>: success or an Error.
template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT: implicit by design

  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const {
    TROUPE_CHECK(!ok_, "Result<void>::error() on success");
    return error_;
  }

 private:
  Error error_;
  bool ok_ = true;
};

using Status = Result<void>;

inline Error makeError(ErrorCode code, std::string field_path, std::string message) {
  return Error{code, std::move(field_path), std::move(message)};
}

}  // namespace troupe
