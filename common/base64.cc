#include "common/base64.h"

#include <fmt/format.h>

namespace troupe {
namespace {

constexpr std::string_view kStandard =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr std::string_view kUrl =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

// Every three bytes become four characters of `alphabet`; a last group of one or two bytes
// becomes two or three characters, then '=' up to four when `pad`.
std::string encode(std::string_view bytes, std::string_view alphabet, bool pad) {
  std::string out;
  out.reserve(4 * ((bytes.size() + 2) / 3));
  std::size_t i = 0;
  auto byte = [&](std::size_t at) {
    return static_cast<unsigned>(static_cast<unsigned char>(bytes[at]));
  };
  for (; i + 3 <= bytes.size(); i += 3) {
    const unsigned group = (byte(i) << 16) | (byte(i + 1) << 8) | byte(i + 2);
    for (int shift = 18; shift >= 0; shift -= 6) out.push_back(alphabet[(group >> shift) & 0x3f]);
  }
  const std::size_t left = bytes.size() - i;
  if (left == 0) return out;
  const unsigned group = (byte(i) << 16) | (left == 2 ? byte(i + 1) << 8 : 0);
  out.push_back(alphabet[(group >> 18) & 0x3f]);
  out.push_back(alphabet[(group >> 12) & 0x3f]);
  if (left == 2) out.push_back(alphabet[(group >> 6) & 0x3f]);
  if (pad) out.append(3 - left, '=');
  return out;
}

// The value of `c` in the URL-safe alphabet, the standard one's characters included; -1
// for any other.
int valueOf(char c, bool url) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+' || (url && c == '-')) return 62;
  if (c == '/' || (url && c == '_')) return 63;
  return -1;
}

}  // namespace

std::string encodeBase64(std::string_view bytes) { return encode(bytes, kStandard, true); }

std::string encodeBase64Url(std::string_view bytes) { return encode(bytes, kUrl, false); }

Result<std::string> decodeBase64(std::string_view text, const std::string& field_path) {
  std::string out;
  unsigned int buffer = 0;
  int bits = 0;
  bool padding = false;
  for (char c : text) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    if (c == '=') {
      padding = true;
      continue;
    }
    const int v = valueOf(c, false);
    if (v < 0 || padding) {
      return makeError(ErrorCode::Invalid, field_path,
                       fmt::format("not valid base64 (unexpected character '{}')", c));
    }
    buffer = (buffer << 6) | static_cast<unsigned int>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buffer >> bits) & 0xff));
    }
  }
  if (bits >= 6) return makeError(ErrorCode::Invalid, field_path, "not valid base64 (truncated)");
  return out;
}

std::optional<std::string> decodeBase64Url(std::string_view text) {
  std::string out;
  unsigned int buffer = 0;
  int bits = 0;
  for (char c : text) {
    if (c == '=') break;
    const int v = valueOf(c, true);
    if (v < 0) return std::nullopt;
    buffer = (buffer << 6) | static_cast<unsigned int>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buffer >> bits) & 0xff));
    }
  }
  return out;
}

}  // namespace troupe
