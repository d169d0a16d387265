#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "apiserver/http/response_stream.h"

// Plain HTTP request and response values. They carry no Beast types so that the REST
// layer above the socket code compiles without Boost headers.
namespace troupe::apiserver::http {

struct Request {
  std::string method;  // "GET", "POST", ...
  std::string target;  // as sent: path and query
  std::string path;    // percent-decoded path, no query
  // Query parameters, percent-decoded; a repeated key keeps the last value.
  std::map<std::string, std::string> query;
  // Header names lower-cased.
  std::map<std::string, std::string> headers;
  std::string body;
  std::string remote;  // "127.0.0.1:54321"

  std::string header(const std::string& lower_name) const {
    auto it = headers.find(lower_name);
    return it == headers.end() ? std::string() : it->second;
  }
  std::string param(const std::string& name) const {
    auto it = query.find(name);
    return it == query.end() ? std::string() : it->second;
  }
  bool hasParam(const std::string& name) const { return query.count(name) > 0; }
};

struct Response {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  // Set for a streamed (chunked) answer such as a watch: the body above is empty and the
  // session pumps what the stream produces until it finishes or the client leaves.
  std::shared_ptr<ResponseStream> stream;
};

// The body of a failure the HTTP layer answers itself, before or around a handler (a body
// over the limit, a handler that threw): a Kubernetes Status, as the handlers' own failures.
std::string statusBody(int code, const std::string& reason, const std::string& message);

// Splits a request target into path and query, percent-decoding both.
void parseTarget(Request& request);
std::string percentDecode(const std::string& text, bool plus_is_space);

}  // namespace troupe::apiserver::http
