#pragma once

#include <nlohmann/json.hpp>

#include <string_view>

#include "common/result.h"

// Kubernetes' protobuf encoding of built-in objects, decoded to the JSON the rest of the
// server works on. kubectl's typed generators (`kubectl create namespace|configmap|secret|
// serviceaccount|priorityclass`) send their object this way; everything else (apply, patch,
// custom resources) is JSON already. The body is the 4-byte magic "k8s\0" and a
// runtime.Unknown envelope {typeMeta {apiVersion, kind}, raw, contentEncoding, contentType}
// whose `raw` is the object's own message.
namespace troupe::apiserver::protobuf {

// The object as JSON with apiVersion and kind from the envelope. A kind this decoder does
// not describe, or a field of it that it does not know, is an UnsupportedMedia error that
// names them: nothing the client sent is silently dropped.
Result<nlohmann::json> decodeObject(std::string_view body);

}  // namespace troupe::apiserver::protobuf
