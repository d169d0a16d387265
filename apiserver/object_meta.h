#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "common/clock.h"

// Small helpers for ObjectMeta: uids, names.
namespace troupe::apiserver {

std::string newUid();
// A random 5-character suffix for generateName, from the alphabet the real server uses.
std::string randomSuffix();
// Empty when `name` is a valid DNS-1123 subdomain; otherwise the reason.
std::string checkDnsSubdomain(const std::string& name);

}  // namespace troupe::apiserver
