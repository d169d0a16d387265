#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "common/result.h"

namespace troupe::api {

// A Kubernetes resource quantity ("500m", "64Gi", "1e3", "1.5", "+2"), held as an exact
// integer number of thousandths. Parsing follows Kubernetes' grammar:
//   <sign>? <digits> (. <digits>)? <suffix>
// where the suffix is a decimal SI prefix (n u m "" k M G T P E), a binary one
// (Ki Mi Gi Ti Pi Ei) or a decimal exponent (e3, E-2). Precision below one thousandth is
// rounded away from zero, as Kubernetes' MilliValue does ("1u" is 1m). A quantity whose
// milli-value does not fit in int64 is an error, never a wrapped number.
class Quantity {
 public:
  // How the quantity was written; toString() keeps the family, as Kubernetes does.
  enum class Format { DecimalSI, BinarySI, DecimalExponent };

  Quantity() = default;
  static Quantity fromMilli(int64_t milli, Format format = Format::DecimalSI) {
    return Quantity(milli, format);
  }
  static Result<Quantity> fromUnits(int64_t units, Format format = Format::DecimalSI);

  // `field` names the field in errors: `spec.resources[cpu].limit: Invalid value: "x": ...`.
  static Result<Quantity> parse(std::string_view text, std::string_view field = "");
  // A JSON string, or a bare JSON number (Kubernetes accepts both).
  static Result<Quantity> fromJson(const nlohmann::json& value, std::string_view field = "");

  int64_t milliValue() const { return milli_; }
  // Whole units, rounded away from zero ("1500m" is 2).
  int64_t value() const;
  Format format() const { return format_; }
  bool isZero() const { return milli_ == 0; }
  bool isNegative() const { return milli_ < 0; }

  // The canonical form Kubernetes prints: "1500m" for 1.5, "1Gi" for 1024Mi, "1k" for 1000.
  std::string toString() const;

  // Exact arithmetic; overflow is an error naming `field`.
  Result<Quantity> plus(const Quantity& other, std::string_view field = "") const;
  Result<Quantity> minus(const Quantity& other, std::string_view field = "") const;
  Result<Quantity> times(int64_t factor, std::string_view field = "") const;

  friend bool operator==(const Quantity& a, const Quantity& b) { return a.milli_ == b.milli_; }
  friend std::strong_ordering operator<=>(const Quantity& a, const Quantity& b) {
    return a.milli_ <=> b.milli_;
  }

 private:
  Quantity(int64_t milli, Format format) : milli_(milli), format_(format) {}

  int64_t milli_ = 0;
  Format format_ = Format::DecimalSI;
};

// Checked int64 arithmetic shared by quantity sums elsewhere: false on overflow.
bool checkedAdd(int64_t a, int64_t b, int64_t* out);
bool checkedMul(int64_t a, int64_t b, int64_t* out);

}  // namespace troupe::api
