#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/quantity.h"
#include "common/error.h"

namespace troupe::api {

// Reads typed fields out of decoded JSON, collecting every type error (in the words the
// apiserver's schema validation uses) instead of stopping at the first. A null field is
// treated as absent, as Kubernetes' typed decoding does. Used by every decoder in api/.
class JsonFields {
 public:
  // How a quantity may be written: core kinds take any JSON number or a string (Kubernetes'
  // Quantity); Troupe's CRDs declare quantities x-kubernetes-int-or-string, so a fraction
  // must be a string there ("1.5", not 1.5).
  enum class QuantityForm { Any, IntOrString };

  explicit JsonFields(std::vector<Error>& errors) : errors_(errors) {}

  // The member `key` of `object` if present and not null.
  static const nlohmann::json* find(const nlohmann::json& object, std::string_view key);

  std::optional<std::string> string(const nlohmann::json& object, std::string_view key,
                                    const std::string& path);
  // An RFC 3339 timestamp string (format: date-time); an empty string is an error, as in
  // the CRD schema.
  std::optional<std::string> timestamp(const nlohmann::json& object, std::string_view key,
                                       const std::string& path);
  std::optional<bool> boolean(const nlohmann::json& object, std::string_view key,
                              const std::string& path);
  std::optional<int64_t> int64(const nlohmann::json& object, std::string_view key,
                               const std::string& path);
  // An int64 that must fit in int32 (Kubernetes `format: int32`).
  std::optional<int32_t> int32(const nlohmann::json& object, std::string_view key,
                               const std::string& path);
  std::optional<Quantity> quantity(const nlohmann::json& object, std::string_view key,
                                   const std::string& path, QuantityForm form = QuantityForm::Any);
  // Objects and arrays, type-checked; nullptr when absent or of the wrong type.
  const nlohmann::json* object(const nlohmann::json& parent, std::string_view key,
                               const std::string& path);
  const nlohmann::json* array(const nlohmann::json& parent, std::string_view key,
                              const std::string& path);
  std::map<std::string, std::string> stringMap(const nlohmann::json& parent, std::string_view key,
                                               const std::string& path);
  std::vector<std::string> stringList(const nlohmann::json& parent, std::string_view key,
                                      const std::string& path);
  // A map of resource name to quantity; keys appear as `path[key]` in errors.
  std::map<std::string, Quantity> resourceMap(const nlohmann::json& parent, std::string_view key,
                                              const std::string& path,
                                              QuantityForm form = QuantityForm::Any);

  // Checks apiVersion and kind, when present, are the expected ones.
  void typeMeta(const nlohmann::json& object, std::string_view api_version, std::string_view kind);

  // Records a type mismatch: `<path> in body must be of type <want>: "<got>"`.
  void typeError(const std::string& path, const nlohmann::json& value, std::string_view want);

  std::vector<Error>& errors() { return errors_; }

 private:
  std::vector<Error>& errors_;
};

// How Troupe's own kinds (Queue, TrainingJob, PodGroup) write their quantities.
inline constexpr auto kIntOrString = JsonFields::QuantityForm::IntOrString;

}  // namespace troupe::api
