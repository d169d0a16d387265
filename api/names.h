#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace troupe::api {

// Kubernetes name rules. Each returns nullopt when `value` is valid, or the reason in the
// apiserver's words ("a lowercase RFC 1123 subdomain must consist of ...").

// Object names of most kinds, Queue parents and names: at most 253 characters.
std::optional<std::string> checkDnsSubdomain(std::string_view value);
// Namespaces and label-safe names: at most 63 characters.
std::optional<std::string> checkDnsLabel(std::string_view value);
// Label keys, annotation keys and resource names: [prefix/]name.
std::optional<std::string> checkQualifiedName(std::string_view value);
// Label values.
std::optional<std::string> checkLabelValue(std::string_view value);

}  // namespace troupe::api
