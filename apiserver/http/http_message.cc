#include "apiserver/http/http_message.h"

#include <nlohmann/json.hpp>

namespace troupe::apiserver::http {

namespace {
int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
}  // namespace

std::string statusBody(int code, const std::string& reason, const std::string& message) {
  nlohmann::json status = {
      {"kind", "Status"},    {"apiVersion", "v1"}, {"metadata", nlohmann::json::object()},
      {"status", "Failure"}, {"message", message}, {"reason", reason},
      {"code", code}};
  return status.dump();
}

std::string percentDecode(const std::string& text, bool plus_is_space) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '%' && i + 2 < text.size()) {
      int hi = hexValue(text[i + 1]);
      int lo = hexValue(text[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out.push_back(static_cast<char>(hi * 16 + lo));
        i += 2;
        continue;
      }
    }
    out.push_back(plus_is_space && c == '+' ? ' ' : c);
  }
  return out;
}

void parseTarget(Request& request) {
  const std::string& target = request.target;
  auto q = target.find('?');
  request.path = percentDecode(target.substr(0, q), false);
  request.query.clear();
  if (q == std::string::npos) return;
  std::string query = target.substr(q + 1);
  std::size_t start = 0;
  while (start <= query.size()) {
    auto amp = query.find('&', start);
    std::string part =
        query.substr(start, amp == std::string::npos ? std::string::npos : amp - start);
    if (!part.empty()) {
      auto eq = part.find('=');
      std::string key = percentDecode(part.substr(0, eq), true);
      std::string value = eq == std::string::npos ? "" : percentDecode(part.substr(eq + 1), true);
      request.query[key] = value;
    }
    if (amp == std::string::npos) break;
    start = amp + 1;
  }
}

}  // namespace troupe::apiserver::http
