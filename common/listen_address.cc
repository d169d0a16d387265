#include "common/listen_address.h"

#include <arpa/inet.h>
#include <fmt/format.h>

namespace troupe {

Result<ListenAddress> parseListenAddress(std::string_view text, const std::string& flag) {
  auto colon = text.rfind(':');
  if (colon == std::string_view::npos)
    return makeError(ErrorCode::Invalid, flag,
                     fmt::format("Invalid value: \"{}\": must be host:port or :port", text));
  std::string_view port = text.substr(colon + 1);
  int number = 0;
  for (char c : port) {
    if (c < '0' || c > '9' || number > 65535) {
      number = -1;
      break;
    }
    number = number * 10 + (c - '0');
  }
  if (port.empty() || number < 0 || number > 65535)
    return makeError(ErrorCode::Invalid, flag,
                     fmt::format("Invalid value: \"{}\": the port must be 0..65535", text));
  std::string host(text.substr(0, colon));
  if (host.size() > 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  if (host.empty()) host = "0.0.0.0";
  if (host == "localhost") host = "127.0.0.1";
  unsigned char ip[sizeof(in6_addr)];
  if (inet_pton(AF_INET, host.c_str(), ip) != 1 && inet_pton(AF_INET6, host.c_str(), ip) != 1)
    return makeError(ErrorCode::Invalid, flag,
                     fmt::format("Invalid value: \"{}\": {} is not an IP address", text, host));
  return ListenAddress{host, static_cast<std::uint16_t>(number)};
}

}  // namespace troupe
