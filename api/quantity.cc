#include "api/quantity.h"

#include <fmt/format.h>

#include <limits>
#include <nlohmann/json.hpp>

#include "api/field_error.h"

namespace troupe::api {
namespace {

__extension__ typedef __int128 i128;
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
// More significant digits than this cannot be held exactly while scaling.
constexpr int kMaxSignificantDigits = 36;

constexpr const char* kGrammar =
    "quantities must match the regular expression "
    "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

Error badQuantity(std::string_view field, std::string_view text, std::string_view why) {
  return invalid(std::string(field.empty() ? "quantity" : field), std::string(text), why);
}

struct Suffix {
  int base = 10;     // 10 or 2
  int exponent = 0;  // power of base
  Quantity::Format format = Quantity::Format::DecimalSI;
};

bool parseSuffix(std::string_view s, Suffix* out) {
  struct Entry {
    std::string_view text;
    int base;
    int exponent;
  };
  static constexpr Entry kTable[] = {
      {"", 10, 0},   {"n", 10, -9}, {"u", 10, -6}, {"m", 10, -3}, {"k", 10, 3},  {"M", 10, 6},
      {"G", 10, 9},  {"T", 10, 12}, {"P", 10, 15}, {"E", 10, 18}, {"Ki", 2, 10}, {"Mi", 2, 20},
      {"Gi", 2, 30}, {"Ti", 2, 40}, {"Pi", 2, 50}, {"Ei", 2, 60},
  };
  for (const auto& e : kTable) {
    if (s == e.text) {
      *out = Suffix{e.base, e.exponent,
                    e.base == 2 ? Quantity::Format::BinarySI : Quantity::Format::DecimalSI};
      return true;
    }
  }
  if (s.size() >= 2 && (s[0] == 'e' || s[0] == 'E')) {
    std::string_view digits = s.substr(1);
    bool negative = false;
    if (digits[0] == '+' || digits[0] == '-') {
      negative = digits[0] == '-';
      digits.remove_prefix(1);
    }
    if (digits.empty() || digits.size() > 4) return false;
    int value = 0;
    for (char c : digits) {
      if (c < '0' || c > '9') return false;
      value = value * 10 + (c - '0');
    }
    *out = Suffix{10, negative ? -value : value, Quantity::Format::DecimalExponent};
    return true;
  }
  return false;
}

// Multiplies *v by factor, false when |result| would exceed the int128 headroom we allow.
bool mulChecked(i128* v, i128 factor) {
  static const i128 kLimit = static_cast<i128>(1) << 120;
  if (*v != 0 && (factor > kLimit / (*v < 0 ? -*v : *v))) return false;
  *v *= factor;
  return true;
}

i128 pow10(int n) {
  i128 r = 1;
  for (int i = 0; i < n; ++i) r *= 10;
  return r;
}

// The largest suffix that still leaves an integer mantissa, as Kubernetes canonicalises.
std::string formatDecimal(int64_t milli, bool exponent_style) {
  if (milli == 0) return "0";
  i128 m = milli;
  bool negative = m < 0;
  if (negative) m = -m;
  // value = m * 10^-3; pull factors of 1000 out while they divide evenly.
  int exp = -3;
  while (m % 1000 == 0 && exp < 18) {
    m /= 1000;
    exp += 3;
  }
  std::string digits;
  for (i128 x = m; x > 0; x /= 10) digits.insert(digits.begin(), static_cast<char>('0' + x % 10));
  std::string suffix;
  if (exponent_style) {
    if (exp != 0) suffix = fmt::format("e{}", exp);
  } else {
    switch (exp) {
      case -3: suffix = "m"; break;
      case 0: break;
      case 3: suffix = "k"; break;
      case 6: suffix = "M"; break;
      case 9: suffix = "G"; break;
      case 12: suffix = "T"; break;
      case 15: suffix = "P"; break;
      case 18: suffix = "E"; break;
    }
  }
  return (negative ? "-" : "") + digits + suffix;
}

std::string formatBinary(int64_t milli) {
  // Binary suffixes only for whole numbers of at least 1024; the rest prints as decimal SI.
  if (milli % 1000 != 0) return formatDecimal(milli, false);
  i128 units = milli / 1000;
  bool negative = units < 0;
  if (negative) units = -units;
  if (units < 1024) return formatDecimal(milli, false);
  static constexpr const char* kSuffixes[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  int step = 0;
  while (step < 6 && units % 1024 == 0) {
    units /= 1024;
    ++step;
  }
  std::string digits;
  for (i128 x = units; x > 0; x /= 10)
    digits.insert(digits.begin(), static_cast<char>('0' + x % 10));
  return (negative ? "-" : "") + digits + kSuffixes[step];
}

}  // namespace

bool checkedAdd(int64_t a, int64_t b, int64_t* out) { return !__builtin_add_overflow(a, b, out); }
bool checkedMul(int64_t a, int64_t b, int64_t* out) { return !__builtin_mul_overflow(a, b, out); }

Result<Quantity> Quantity::fromUnits(int64_t units, Format format) {
  int64_t milli = 0;
  if (!checkedMul(units, 1000, &milli)) {
    return badQuantity("", std::to_string(units), "quantity is out of range");
  }
  return Quantity(milli, format);
}

Result<Quantity> Quantity::parse(std::string_view text, std::string_view field) {
  if (text.empty()) return badQuantity(field, text, kGrammar);
  size_t pos = 0;
  bool negative = false;
  if (text[0] == '+' || text[0] == '-') {
    negative = text[0] == '-';
    pos = 1;
  }
  // Mantissa: digits, optionally '.', digits; at least one digit in all.
  std::string significant;  // integer and fraction digits, leading zeros dropped
  int fraction_digits = 0;
  int digit_count = 0;
  bool seen_dot = false;
  for (; pos < text.size(); ++pos) {
    char c = text[pos];
    if (c == '.') {
      if (seen_dot) return badQuantity(field, text, kGrammar);
      seen_dot = true;
      continue;
    }
    if (c < '0' || c > '9') break;
    ++digit_count;
    if (seen_dot) ++fraction_digits;
    if (significant.empty() && c == '0') continue;
    significant += c;
  }
  if (digit_count == 0) return badQuantity(field, text, kGrammar);
  Suffix suffix;
  if (!parseSuffix(text.substr(pos), &suffix)) return badQuantity(field, text, kGrammar);

  // value = significant * 10^-fraction_digits * base^exponent; milli = value * 1000.
  int exp10 = 3 - fraction_digits;
  while (!significant.empty() && significant.back() == '0') {
    significant.pop_back();
    ++exp10;
  }
  // Zeros dropped from the significant digits still count as fraction digits above.
  if (significant.size() > kMaxSignificantDigits) {
    return badQuantity(field, text, "quantity has too many significant digits");
  }
  i128 v = 0;
  for (char c : significant) v = v * 10 + (c - '0');
  if (suffix.base == 10) {
    exp10 += suffix.exponent;
  } else if (!mulChecked(&v, static_cast<i128>(1) << suffix.exponent)) {
    return badQuantity(field, text, "quantity is out of range");
  }
  if (v != 0) {
    if (exp10 >= 0) {
      if (exp10 > 19 || !mulChecked(&v, pow10(exp10))) {
        return badQuantity(field, text, "quantity is out of range");
      }
    } else if (-exp10 > 38) {
      v = 1;  // a non-zero amount far below one thousandth rounds up to 1m
    } else {
      i128 d = pow10(-exp10);
      i128 q = v / d;
      if (v % d != 0) ++q;  // round away from zero, as Kubernetes' MilliValue does
      v = q;
    }
  }
  if (negative) v = -v;
  if (v > kMax || v < kMin) return badQuantity(field, text, "quantity is out of range");
  return Quantity(static_cast<int64_t>(v), suffix.format);
}

Result<Quantity> Quantity::fromJson(const nlohmann::json& value, std::string_view field) {
  if (value.is_string()) return parse(value.get_ref<const std::string&>(), field);
  if (value.is_number_integer()) {
    if (value.is_number_unsigned() && value.get<uint64_t>() > static_cast<uint64_t>(kMax)) {
      return badQuantity(field, value.dump(), "quantity is out of range");
    }
    return parse(std::to_string(value.get<int64_t>()), field);
  }
  if (value.is_number_float()) return parse(value.dump(), field);
  std::string path(field.empty() ? "quantity" : field);
  return typeInvalid(
      path, value, fmt::format("{} must be a quantity string such as \"500m\" or \"64Gi\"", path));
}

int64_t Quantity::value() const {
  int64_t q = milli_ / 1000;
  if (milli_ % 1000 > 0) ++q;
  if (milli_ % 1000 < 0) --q;
  return q;
}

std::string Quantity::toString() const {
  switch (format_) {
    case Format::BinarySI: return formatBinary(milli_);
    case Format::DecimalExponent: return formatDecimal(milli_, true);
    case Format::DecimalSI: return formatDecimal(milli_, false);
  }
  return formatDecimal(milli_, false);
}

Result<Quantity> Quantity::plus(const Quantity& other, std::string_view field) const {
  int64_t out = 0;
  if (!checkedAdd(milli_, other.milli_, &out)) {
    return badQuantity(field, toString(), fmt::format("adding {} overflows", other.toString()));
  }
  return Quantity(out, format_);
}

Result<Quantity> Quantity::minus(const Quantity& other, std::string_view field) const {
  int64_t out = 0;
  if (__builtin_sub_overflow(milli_, other.milli_, &out)) {
    return badQuantity(field, toString(),
                       fmt::format("subtracting {} overflows", other.toString()));
  }
  return Quantity(out, format_);
}

Result<Quantity> Quantity::times(int64_t factor, std::string_view field) const {
  int64_t out = 0;
  if (!checkedMul(milli_, factor, &out)) {
    return badQuantity(field, toString(), fmt::format("multiplying by {} overflows", factor));
  }
  return Quantity(out, format_);
}

}  // namespace troupe::api
