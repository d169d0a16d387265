// libFuzzer harness: the bytes of an HTTP/1.1 request as a client sends them, read with the
// server's parser and limits and turned into the request the handlers see.
#include <cstddef>
#include <cstdint>

#include "apiserver/handlers/content.h"
#include "apiserver/http/beast_session.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace http = troupe::apiserver::http;
  namespace bhttp = boost::beast::http;
  const http::ServerOptions limits;
  bhttp::request_parser<bhttp::string_body> parser;
  parser.body_limit(64 * 1024);
  parser.header_limit(static_cast<std::uint32_t>(limits.header_limit));
  parser.eager(true);
  boost::beast::error_code ec;
  std::size_t used = 0;
  // Fed in two pieces, as a socket may deliver them.
  const std::size_t half = size / 2;
  used += parser.put(boost::asio::buffer(data, half), ec);
  if (ec == bhttp::error::need_more) ec = {};
  // (A message may end within the first piece: the parser takes nothing after its end.)
  if (!ec && !parser.is_done())
    used += parser.put(boost::asio::buffer(data + used, size - used), ec);
  if (ec || !parser.is_done()) return 0;
  http::Request request = http::toRequest(parser.release(), "127.0.0.1:1");
  (void)troupe::apiserver::negotiate(request.header("accept"), true);
  (void)troupe::apiserver::bodyFormatOf(request.header("content-type"));
  return 0;
}
