#include "api/names.h"

#include <fmt/format.h>

#include <regex>

namespace troupe::api {
namespace {

bool isLowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// One DNS label: lower-case letters, digits and '-', starting and ending with a letter or
// digit (the regex '[a-z0-9]([-a-z0-9]*[a-z0-9])?'), checked without a regex: every
// object a client creates is named by one, and std::regex costs microseconds a name.
bool isDnsLabel(std::string_view label) {
  if (label.empty() || !isLowerAlnum(label.front()) || !isLowerAlnum(label.back())) return false;
  for (char c : label)
    if (!isLowerAlnum(c) && c != '-') return false;
  return true;
}

// Labels joined by '.'.
bool isDnsSubdomain(std::string_view value) {
  for (std::size_t start = 0;;) {
    const std::size_t dot = value.find('.', start);
    if (!isDnsLabel(value.substr(start, dot == std::string_view::npos ? dot : dot - start)))
      return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

const std::regex& qualifiedNamePart() {
  static const std::regex re("^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$");
  return re;
}

}  // namespace

std::optional<std::string> checkDnsSubdomain(std::string_view value) {
  if (value.size() > 253) return std::string("must be no more than 253 characters");
  if (!isDnsSubdomain(value)) {
    return std::string(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' "
        "or '.', and must start and end with an alphanumeric character (e.g. 'example.com', "
        "regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
  }
  return std::nullopt;
}

std::optional<std::string> checkDnsLabel(std::string_view value) {
  if (value.size() > 63) return std::string("must be no more than 63 characters");
  if (!isDnsLabel(value)) {
    return std::string(
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
        "and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', "
        "regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')");
  }
  return std::nullopt;
}

std::optional<std::string> checkQualifiedName(std::string_view value) {
  std::string_view name = value;
  size_t slash = value.find('/');
  if (slash != std::string_view::npos) {
    std::string_view prefix = value.substr(0, slash);
    name = value.substr(slash + 1);
    if (prefix.empty()) return std::string("prefix part must be non-empty");
    if (auto why = checkDnsSubdomain(prefix)) return "prefix part " + *why;
    if (name.find('/') != std::string_view::npos) {
      return std::string(
          "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must "
          "start and end with an alphanumeric character, with an optional DNS subdomain prefix "
          "and '/' (e.g. 'example.com/MyName')");
    }
  }
  if (name.empty()) return std::string("name part must be non-empty");
  if (name.size() > 63) return std::string("name part must be no more than 63 characters");
  if (!std::regex_match(name.begin(), name.end(), qualifiedNamePart())) {
    return std::string(
        "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and "
        "end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
        "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')");
  }
  return std::nullopt;
}

std::optional<std::string> checkLabelValue(std::string_view value) {
  if (value.empty()) return std::nullopt;
  if (value.size() > 63) return std::string("must be no more than 63 characters");
  if (!std::regex_match(value.begin(), value.end(), qualifiedNamePart())) {
    return std::string(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' "
        "or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
        "'my_value',  or '12345', regex used for validation is "
        "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')");
  }
  return std::nullopt;
}

}  // namespace troupe::api
