#include <catch2/catch.hpp>

#include "common/base64.h"

namespace troupe {
namespace {

TEST_CASE("bytes are written in the standard alphabet, padded", "[common][base64]") {
  // RFC 4648's test vectors.
  CHECK(encodeBase64("") == "");
  CHECK(encodeBase64("f") == "Zg==");
  CHECK(encodeBase64("fo") == "Zm8=");
  CHECK(encodeBase64("foo") == "Zm9v");
  CHECK(encodeBase64("foobar") == "Zm9vYmFy");
  CHECK(encodeBase64("s3cret") == "czNjcmV0");
  // 0xfb 0xff: 111110 111111 1111(00) are '+', '/' and '8' in the standard alphabet.
  CHECK(encodeBase64("\xfb\xff") == "+/8=");
  CHECK(encodeBase64(std::string("\0\0\0", 3)) == "AAAA");
}

TEST_CASE("continue tokens are written in the URL-safe alphabet, unpadded", "[common][base64]") {
  CHECK(encodeBase64Url("f") == "Zg");
  CHECK(encodeBase64Url("fo") == "Zm8");
  CHECK(encodeBase64Url("foo") == "Zm9v");
  CHECK(encodeBase64Url("\xfb\xff") == "-_8");
}

TEST_CASE("base64 decoding accepts padding and line breaks and rejects junk", "[common][base64]") {
  CHECK(decodeBase64("aGVsbG8=", "f").value() == "hello");
  CHECK(decodeBase64("aGVs\nbG8", "f").value() == "hello");
  CHECK(decodeBase64("", "f").value().empty());
  CHECK(decodeBase64("+/8=", "f").value() == "\xfb\xff");
  auto junk = decodeBase64("aGVs!G8=", "users[u].user.client-key-data");
  REQUIRE_FALSE(junk.ok());
  CHECK(junk.error().field_path == "users[u].user.client-key-data");
  CHECK(junk.error().message == "not valid base64 (unexpected character '!')");
  CHECK(decodeBase64("a", "f").error().message == "not valid base64 (truncated)");
  CHECK_FALSE(decodeBase64("aG=Vs", "f").ok());
  CHECK_FALSE(decodeBase64("-_8", "f").ok());  // the URL-safe alphabet is not the standard one
}

TEST_CASE("URL-safe decoding reads what it writes, and the standard alphabet too",
          "[common][base64]") {
  for (const std::string bytes :
       {"", "f", "fo", "foo", "{\"rv\":12,\"start\":\"ns/a\"}", "\xfb\xff"}) {
    DYNAMIC_SECTION("'" << bytes << "'") {
      CHECK(decodeBase64Url(encodeBase64Url(bytes)) == bytes);
    }
  }
  CHECK(decodeBase64Url("+/8") == "\xfb\xff");
  CHECK(decodeBase64Url("Zm8=junk") == "fo");  // the text ends at the first '='
  CHECK(decodeBase64Url("Zm9vY") == "foo");    // bits short of a byte are dropped
  CHECK_FALSE(decodeBase64Url("Zm9v!").has_value());
}

}  // namespace
}  // namespace troupe
