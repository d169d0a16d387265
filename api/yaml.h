#pragma once

#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"

namespace troupe::api {

// YAML to JSON the way kubectl and the apiserver read manifests (sigs.k8s.io/yaml over
// YAML 1.1 resolution): quoted scalars are strings; plain scalars resolve to null (~, null,
// empty), bool (true/false, yes/no, on/off, y/n in their usual cases), int (decimal, 0x, 0o,
// 0b, leading-zero octal, underscores allowed), float (1.5, 1e3; an integral float becomes
// an int, as it does after Go's JSON round trip), else string. Explicit tags (!!str, !!int,
// ...) win. Duplicate keys and non-finite floats are errors. Every yaml-cpp exception is
// caught here and returned as a BadRequest Error with the line and column.
//
// All documents of a multi-document stream, in order; empty documents are skipped.
Result<std::vector<nlohmann::json>> parseYamlDocuments(std::string_view text);
// Exactly one document.
Result<nlohmann::json> parseYaml(std::string_view text);
// JSON text, with nlohmann's exceptions turned into a BadRequest Error.
Result<nlohmann::json> parseJson(std::string_view text);

}  // namespace troupe::api
