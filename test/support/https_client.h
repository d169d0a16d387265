#pragma once

#include <map>
#include <string>
#include <vector>

#include "test/support/command.h"

// A test client for HTTPS requests to a local server, driving the real curl binary (so
// the server is exercised by a client that is not our own code).
namespace troupe::testing {

struct HttpReply {
  int status = 0;
  std::string content_type;
  std::string body;
  std::map<std::string, std::string> headers;  // lower-cased names
};

struct HttpCall {
  std::string method = "GET";
  std::string path;  // "/api/v1/namespaces"
  std::string token;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  int max_seconds = 20;
};

HttpReply httpsRequest(int port, const HttpCall& call);

// A port that was free a moment ago on 127.0.0.1.
int freePort();

}  // namespace troupe::testing
