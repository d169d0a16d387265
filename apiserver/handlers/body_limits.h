#pragma once

#include <cstddef>

#include "common/json_parse.h"

// What one request may cost the server once its body is read: the limits every decoder
// and patch checks while it works, before anything is stored or copied. docs/standalone.md
// ("Limits on a request") states them; where kube-apiserver has the same limit, the number
// is its number.
namespace troupe::apiserver {

// A request body, as read from the socket (kube-apiserver's MaxRequestBodyBytes); the HTTP
// layer answers 413 past it.
constexpr std::size_t kMaxBodyBytes = 3 * 1024 * 1024;
// Nested arrays and objects in a JSON body (kube-apiserver's decoders stop at 10,000;
// common/json_parse.h says why Troupe stops at 1,000); a YAML body stops at kMaxYamlDepth
// (apiserver/handlers/yaml_json.h).
constexpr std::size_t kMaxNestingDepth = kMaxJsonDepth;
// A YAML or protobuf body once decoded, as compact JSON text: what aliases or base64 may
// add to a body within kMaxBodyBytes stops here.
constexpr std::size_t kMaxDecodedBytes = 3 * 1024 * 1024;
// Operations in one JSON patch, and what its `copy` operations may add in all (both
// kube-apiserver's limits).
constexpr std::size_t kMaxJsonPatchOperations = 10000;
constexpr std::size_t kMaxJsonPatchCopyBytes = 3 * 1024 * 1024;

}  // namespace troupe::apiserver
