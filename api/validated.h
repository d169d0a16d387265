#pragma once

#include <vector>

#include "common/error.h"

namespace troupe::api {

// An object as decoded, with every problem found while decoding and validating it; the
// object holds whatever could be read even when errors is not empty.
template <typename T>
struct Validated {
  T object;
  std::vector<Error> errors;

  bool ok() const { return errors.empty(); }
};

// Decode, then validate: all errors at once, decoding errors first.
template <typename T>
Validated<T> decodeAndValidate(const nlohmann::json& json) {
  Validated<T> out;
  out.object = T::fromJson(json, out.errors);
  if (out.errors.empty()) out.errors = out.object.validate();
  return out;
}

}  // namespace troupe::api
