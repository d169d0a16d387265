#include "api/field_error.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

namespace troupe::api {
namespace {

const char* typeText(FieldErrorType type) {
  switch (type) {
    case FieldErrorType::NotFound: return "Not found";
    case FieldErrorType::Required: return "Required value";
    case FieldErrorType::Duplicate: return "Duplicate value";
    case FieldErrorType::Invalid: return "Invalid value";
    case FieldErrorType::NotSupported: return "Unsupported value";
    case FieldErrorType::Forbidden: return "Forbidden";
    case FieldErrorType::TooLong: return "Too long";
    case FieldErrorType::TooMany: return "Too many";
    case FieldErrorType::Internal: return "Internal error";
    case FieldErrorType::TypeInvalid: return "Invalid value";
  }
  return "Invalid value";
}

Error make(std::string path, FieldErrorType type, const nlohmann::json* value,
           std::string_view detail) {
  std::string message = typeText(type);
  if (value != nullptr) message += ": " + renderValue(*value);
  if (!detail.empty()) message += fmt::format(": {}", detail);
  return Error{ErrorCode::Invalid, std::move(path), std::move(message)};
}

bool startsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

}  // namespace

std::string childPath(std::string_view parent, std::string_view name) {
  if (parent.empty()) return std::string(name);
  return fmt::format("{}.{}", parent, name);
}

std::string indexPath(std::string_view parent, size_t index) {
  return fmt::format("{}[{}]", parent, index);
}

std::string keyPath(std::string_view parent, std::string_view key) {
  return fmt::format("{}[{}]", parent, key);
}

Error required(std::string path, std::string_view detail) {
  return make(std::move(path), FieldErrorType::Required, nullptr, detail);
}
Error invalid(std::string path, const nlohmann::json& value, std::string_view detail) {
  return make(std::move(path), FieldErrorType::Invalid, &value, detail);
}
Error typeInvalid(std::string path, const nlohmann::json& value, std::string_view detail) {
  return make(std::move(path), FieldErrorType::TypeInvalid, &value, detail);
}
Error notSupported(std::string path, const nlohmann::json& value,
                   const std::vector<std::string>& supported) {
  std::string detail;
  if (!supported.empty()) {
    detail = "supported values: ";
    for (size_t i = 0; i < supported.size(); ++i) {
      if (i > 0) detail += ", ";
      detail += goQuote(supported[i]);
    }
  }
  return make(std::move(path), FieldErrorType::NotSupported, &value, detail);
}
Error forbidden(std::string path, std::string_view detail) {
  return make(std::move(path), FieldErrorType::Forbidden, nullptr, detail);
}
Error duplicate(std::string path, const nlohmann::json& value) {
  return make(std::move(path), FieldErrorType::Duplicate, &value, "");
}
Error notFound(std::string path, const nlohmann::json& value) {
  return make(std::move(path), FieldErrorType::NotFound, &value, "");
}
Error tooLong(std::string path, int64_t max_length) {
  std::string detail = max_length >= 0 ? fmt::format("may not be longer than {}", max_length)
                                       : std::string("value is too long");
  return make(std::move(path), FieldErrorType::TooLong, nullptr, detail);
}
Error tooMany(std::string path, int64_t actual, int64_t max_items) {
  std::string detail = max_items >= 0 ? fmt::format("must have at most {} items", max_items)
                                      : std::string("has too many items");
  if (actual < 0) return make(std::move(path), FieldErrorType::TooMany, nullptr, detail);
  nlohmann::json value = actual;
  return make(std::move(path), FieldErrorType::TooMany, &value, detail);
}
Error internalError(std::string path, std::string_view detail) {
  return make(std::move(path), FieldErrorType::Internal, nullptr, detail);
}

FieldErrorType fieldErrorType(const Error& error) {
  std::string_view m = error.message;
  if (startsWith(m, "Required value")) return FieldErrorType::Required;
  if (startsWith(m, "Unsupported value")) return FieldErrorType::NotSupported;
  if (startsWith(m, "Not found")) return FieldErrorType::NotFound;
  if (startsWith(m, "Duplicate value")) return FieldErrorType::Duplicate;
  if (startsWith(m, "Forbidden")) return FieldErrorType::Forbidden;
  if (startsWith(m, "Too long")) return FieldErrorType::TooLong;
  if (startsWith(m, "Too many")) return FieldErrorType::TooMany;
  if (startsWith(m, "Internal error")) return FieldErrorType::Internal;
  // Schema type mismatches read "... in body must be of type integer: \"string\"".
  if (startsWith(m, "Invalid value") && m.find(" must be of type ") != std::string_view::npos)
    return FieldErrorType::TypeInvalid;
  return FieldErrorType::Invalid;
}

const char* causeReason(FieldErrorType type) {
  switch (type) {
    case FieldErrorType::NotFound: return "FieldValueNotFound";
    case FieldErrorType::Required: return "FieldValueRequired";
    case FieldErrorType::Duplicate: return "FieldValueDuplicate";
    case FieldErrorType::Invalid: return "FieldValueInvalid";
    case FieldErrorType::NotSupported: return "FieldValueNotSupported";
    case FieldErrorType::Forbidden: return "FieldValueForbidden";
    case FieldErrorType::TooLong: return "FieldValueTooLong";
    case FieldErrorType::TooMany: return "FieldValueTooMany";
    case FieldErrorType::Internal: return "InternalError";
    case FieldErrorType::TypeInvalid: return "FieldValueTypeInvalid";
  }
  return "FieldValueInvalid";
}

std::string goQuote(std::string_view text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\a': out += "\\a"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\v': out += "\\v"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          out += fmt::format("\\x{:02x}", c);
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
  return out;
}

std::string goFloat(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  char buf[64];
  auto sci = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
  std::string_view s(buf, static_cast<size_t>(sci.ptr - buf));
  int exponent = std::stoi(std::string(s.substr(s.find('e') + 1)));
  // Go's %v uses %e when the exponent is below -4 or at least 21, %f otherwise.
  if (exponent < -4 || exponent >= 21) return std::string(s);
  auto fixed = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::fixed);
  return std::string(buf, static_cast<size_t>(fixed.ptr - buf));
}

std::string renderValue(const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::null: return "\"null\"";
    case nlohmann::json::value_t::string: return goQuote(value.get_ref<const std::string&>());
    case nlohmann::json::value_t::boolean: return value.get<bool>() ? "true" : "false";
    case nlohmann::json::value_t::number_integer: return std::to_string(value.get<int64_t>());
    case nlohmann::json::value_t::number_unsigned: return std::to_string(value.get<uint64_t>());
    case nlohmann::json::value_t::number_float: return goFloat(value.get<double>());
    default: return value.dump();
  }
}

}  // namespace troupe::api
