#include <catch2/catch.hpp>

#include "common/listen_address.h"

using troupe::parseListenAddress;

TEST_CASE("a listen address is host:port or :port, the host an IP address",
          "[common][listen-address]") {
  struct Case {
    std::string text;
    std::string want_host;
    int want_port;
    std::string want_error;
  };
  std::vector<Case> cases = {
      {"127.0.0.1:8080", "127.0.0.1", 8080, ""},
      {":8081", "0.0.0.0", 8081, ""},
      {"localhost:0", "127.0.0.1", 0, ""},
      {"[::1]:9", "::1", 9, ""},
      {"::1:9", "::1", 9, ""},
      {"8080", "", 0, "--x: Invalid value: \"8080\": must be host:port or :port"},
      {"127.0.0.1:", "", 0, "--x: Invalid value: \"127.0.0.1:\": the port must be 0..65535"},
      {"127.0.0.1:65536", "", 0,
       "--x: Invalid value: \"127.0.0.1:65536\": the port must be 0..65535"},
      {"127.0.0.1:99999999999", "", 0,
       "--x: Invalid value: \"127.0.0.1:99999999999\": the port must be 0..65535"},
      {"example.com:80", "", 0,
       "--x: Invalid value: \"example.com:80\": example.com is not an IP address"},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.text) {
      auto parsed = parseListenAddress(tc.text, "--x");
      if (tc.want_error.empty()) {
        REQUIRE(parsed);
        CHECK(parsed->host == tc.want_host);
        CHECK(parsed->port == tc.want_port);
      } else {
        REQUIRE_FALSE(parsed);
        CHECK(parsed.error().describe() == tc.want_error);
      }
    }
  }
}
