#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "common/result.h"

// YAML documents to JSON, with YAML 1.1-style scalar typing for plain scalars (ints,
// floats, booleans, null) and quoted scalars kept as strings.
namespace troupe::apiserver {

Result<std::vector<nlohmann::json>> yamlDocumentsToJson(const std::string& text);
// A body that is JSON, or else YAML with exactly one document.
Result<nlohmann::json> parseJsonOrYaml(const std::string& text);

}  // namespace troupe::apiserver
