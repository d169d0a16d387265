#include "apiserver/handlers/list_query.h"

namespace troupe::apiserver {

namespace {

const char* kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string base64url(const std::string& in) {
  std::string out;
  int val = 0, bits = -6;
  for (unsigned char c : in) {
    val = (val << 8) + c;
    bits += 8;
    while (bits >= 0) {
      out.push_back(kAlphabet[(val >> bits) & 0x3F]);
      bits -= 6;
    }
  }
  if (bits > -6) out.push_back(kAlphabet[((val << 8) >> (bits + 8)) & 0x3F]);
  return out;
}

std::optional<std::string> unbase64url(const std::string& in) {
  std::string out;
  int val = 0, bits = -8;
  for (char c : in) {
    if (c == '=') break;
    if (c == '+') c = '-';
    if (c == '/') c = '_';
    const char* p = std::strchr(kAlphabet, c);
    if (!p || c == '\0') return std::nullopt;
    val = (val << 6) + static_cast<int>(p - kAlphabet);
    bits += 6;
    if (bits >= 0) {
      out.push_back(static_cast<char>((val >> bits) & 0xFF));
      bits -= 8;
    }
  }
  return out;
}

}  // namespace

ApiResult<ListFilter> ListFilter::fromRequest(const RestRequest& request) {
  ListFilter filter;
  auto labels = LabelSelector::parse(request.http.param("labelSelector"));
  if (!labels) return badRequest(labels.error().message);
  auto fields = FieldSelector::parse(request.http.param("fieldSelector"));
  if (!fields) return badRequest(fields.error().message);
  filter.labels_ = std::move(labels.value());
  filter.fields_ = std::move(fields.value());
  return filter;
}

bool ListFilter::matches(const nlohmann::json& object) const {
  return labels_.matches(object) && fields_.matches(object);
}

std::string encodeContinue(Revision revision, const std::string& ns, const std::string& name) {
  nlohmann::json token = {{"v", "meta.k8s.io/v1"}, {"rv", revision}, {"start", ns + "/" + name}};
  return base64url(token.dump());
}

std::optional<ContinuePoint> decodeContinue(const std::string& token) {
  auto text = unbase64url(token);
  if (!text) return std::nullopt;
  auto parsed = nlohmann::json::parse(*text, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object() || !parsed.contains("rv") ||
      !parsed["rv"].is_number_integer() || !parsed.contains("start") ||
      !parsed["start"].is_string())
    return std::nullopt;
  std::string start = parsed["start"];
  auto slash = start.find('/');
  if (slash == std::string::npos) return std::nullopt;
  return ContinuePoint{parsed["rv"].get<Revision>(), start.substr(0, slash),
                       start.substr(slash + 1)};
}

}  // namespace troupe::apiserver
