#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "common/clock.h"

// Small helpers for ObjectMeta: uids, and the suffixes of generated names.
namespace troupe::apiserver {

std::string newUid();
// A random 5-character suffix for generateName, from the alphabet the real server uses.
std::string randomSuffix();

}  // namespace troupe::apiserver
