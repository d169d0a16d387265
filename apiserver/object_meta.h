#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

#include "common/clock.h"

// Small helpers for ObjectMeta: uids, RFC 3339 times, names.
namespace troupe::apiserver {

std::string newUid();
std::string formatTime(Time t);  // "2026-11-23T02:01:36Z"
std::optional<Time> parseTime(const std::string& text);
// A random 5-character suffix for generateName, from the alphabet the real server uses.
std::string randomSuffix();
// Empty when `name` is a valid DNS-1123 subdomain; otherwise the reason.
std::string checkDnsSubdomain(const std::string& name);

}  // namespace troupe::apiserver
