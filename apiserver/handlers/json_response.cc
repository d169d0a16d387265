#include "apiserver/handlers/json_response.h"

#include "common/log.h"

namespace troupe::apiserver {

http::Response statusResponse(const ApiError& error) {
  http::Response response;
  response.status = error.code;
  response.body = dumpForClient(error.status);
  if (error.code == 500 || error.code == 507) {
    log::error("request failed on the server's side",
               {{"code", error.code}, {"message", error.status.value("message", "")}});
  }
  return response;
}

http::Response jsonResponse(int code, const nlohmann::json& body) {
  http::Response response;
  response.status = code;
  response.body = dumpForClient(body);
  return response;
}

std::string dumpForClient(const nlohmann::json& value) {
  // Stored objects are valid UTF-8 (every decoder refuses text that is not), but a message
  // may quote what a client sent in a URL or header; as Go's encoder does, such bytes go
  // out as U+FFFD rather than failing the answer.
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace troupe::apiserver
