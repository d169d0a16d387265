#pragma once

#include <string>
#include <utility>
#include <vector>

// Plain-HTTP requests for tests (the metrics and cluster-mode dashboard ports), made by the
// real curl binary, as https_client.h makes HTTPS ones.
namespace troupe::testing {

struct PlainReply {
  int status = 0;  // 0: no answer
  std::string body;
};

// `url` as is ("http://127.0.0.1:8080/metrics"); at most `max_seconds`, after which a
// streamed answer is cut off and what came so far is the body.
PlainReply plainHttp(const std::string& method, const std::string& url,
                     const std::vector<std::pair<std::string, std::string>>& headers = {},
                     int max_seconds = 20);

}  // namespace troupe::testing
