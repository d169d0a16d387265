#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "apiserver/http/http_message.h"
#include "apiserver/objects/api_status.h"

// JSON answers as kube-apiserver writes them: a Status for an error, any object otherwise.
namespace troupe::apiserver {

// A Status answer; one with a 5xx code is the server's own fault and is logged with its
// message (its cause).
http::Response statusResponse(const ApiError& error);
http::Response jsonResponse(int code, const nlohmann::json& body);
// JSON text for a client; bytes that are not UTF-8 become U+FFFD.
std::string dumpForClient(const nlohmann::json& value);

}  // namespace troupe::apiserver
