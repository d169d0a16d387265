#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <vector>

#include "common/json_parse.h"
#include "common/result.h"

// YAML documents to JSON, with YAML 1.1-style scalar typing for plain scalars (ints,
// floats, booleans, null) and quoted scalars kept as strings.
//
// The text may come from anyone (an `application/yaml` request body), so what it may cost
// is bounded while it is read, before a tree is built past the limit:
// - nesting deeper than `max_depth` (common/json_parse.h says why JSON stops at 1,000;
//   YAML stops at kMaxYamlDepth);
// - aliases that expand a small text into a large tree: refused with the rule of the YAML
//   decoder kubectl and kube-apiserver use (gopkg.in/yaml.v2): once more than 100 of over
//   1,000 decoded nodes come from aliases, at most 99% of the nodes may come from them up
//   to 400,000 nodes, falling to 10% at 4,000,000 ("document contains excessive aliasing");
// - a decoded document larger than `max_bytes` as compact JSON text;
// - text that is not UTF-8.
// Every refusal is a BadRequest Error.
namespace troupe::apiserver {

// yaml-cpp's parser recurses, and refuses nesting deeper than about 500 levels (its depth
// guard counts several frames a level). YAML stops at 400, so that this decoder's own
// check, naming the limit, always comes first.
constexpr std::size_t kMaxYamlDepth = 400;

struct YamlLimits {
  std::size_t max_depth = kMaxYamlDepth;
  std::size_t max_bytes = 3 * 1024 * 1024;
};

Result<std::vector<nlohmann::json>> yamlDocumentsToJson(const std::string& text,
                                                        const YamlLimits& limits = {});
// A body that is JSON (nested at most kMaxJsonDepth), or else YAML with exactly one document.
Result<nlohmann::json> parseJsonOrYaml(const std::string& text, const YamlLimits& limits = {});

}  // namespace troupe::apiserver
