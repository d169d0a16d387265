#pragma once

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>

#include "api/yaml.h"

namespace troupe::api::testing {

// A YAML manifest as the API server reads it; the test stops if it does not parse.
inline nlohmann::json manifest(const std::string& yaml) {
  auto doc = parseYaml(yaml);
  REQUIRE(doc.ok());
  return *doc;
}

}  // namespace troupe::api::testing
