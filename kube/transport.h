#pragma once

#include <chrono>
#include <functional>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kube/api_error.h"

// How a request reaches an API server. The REST client (kube/rest_kube_client.h) builds
// requests and reads answers; a Transport only carries them: HttpTransport over a socket
// (plain or TLS) to any server, or, inside `troupe serve`, a loopback that hands them to the
// embedded server's handlers in the same process (loopback/). Both carry the same requests
// to the same handlers, with the same authentication, so a client cannot tell them apart by
// what it gets back.
namespace troupe::kube {

struct HttpRequest {
  std::string method = "GET";  // GET, POST, PUT, PATCH, DELETE
  std::string target;          // path and query, already escaped
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

struct HttpResponse {
  int status = 0;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;

  // The first header called `name` (case-insensitive), or "".
  std::string header(std::string_view name) const;
};

// Why a call got no (complete) answer; the retry policy reads these from ApiError::reason.
namespace transport_reason {
inline constexpr const char* kConnectFailed = "ConnectFailed";
inline constexpr const char* kTlsFailed = "TLSHandshakeFailed";
// The connection closed before a byte of the answer came back. On a reused keep-alive
// connection this is the server closing an idle connection: the request was not processed.
inline constexpr const char* kClosedBeforeResponse = "ConnectionClosedBeforeResponse";
inline constexpr const char* kDroppedMidResponse = "ConnectionDroppedMidResponse";
inline constexpr const char* kTimeout = "Timeout";
inline constexpr const char* kCancelled = "Cancelled";
inline constexpr const char* kProtocol = "ProtocolError";
}  // namespace transport_reason

class Transport {
 public:
  virtual ~Transport() = default;

  // One attempt: sends `request`, reads the whole answer (any status) within `timeout`.
  // `reused` tells whether a connection kept from an earlier request carried it.
  virtual ApiResult<HttpResponse> send(const HttpRequest& request,
                                       std::chrono::milliseconds timeout,
                                       bool* reused = nullptr) = 0;

  // One attempt for a long-lived answer (a watch): a 2xx body is passed to `on_body` piece
  // by piece as it arrives and the returned response has an empty body; any other status
  // is read whole and returned. Ends when the server ends the body (success), when `stop`
  // is requested (reason Cancelled), at `timeout`, or on a drop.
  virtual ApiResult<HttpResponse> stream(const HttpRequest& request,
                                         std::chrono::milliseconds timeout, std::stop_token stop,
                                         const std::function<void(std::string_view)>& on_body) = 0;
};

}  // namespace troupe::kube
