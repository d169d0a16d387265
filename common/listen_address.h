#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/result.h"

namespace troupe {

// Where a server listens: "host:port", or ":port" for every interface.
struct ListenAddress {
  std::string host;        // an IP address; "0.0.0.0" for ":port", "127.0.0.1" for "localhost"
  std::uint16_t port = 0;  // 0: any free port
};

// Parses `text`; an Invalid error names `flag` and the rule broken (the host must be an IP
// address or "localhost").
Result<ListenAddress> parseListenAddress(std::string_view text, const std::string& flag);

}  // namespace troupe
