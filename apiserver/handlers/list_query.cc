#include "apiserver/handlers/list_query.h"
#include "apiserver/objects/object_service.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <limits>

#include "common/base64.h"
#include "common/json_parse.h"

namespace troupe::apiserver {

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

ApiResult<std::optional<std::int64_t>> integerParam(const RestRequest& request, const char* name) {
  if (!request.http.hasParam(name)) return std::optional<std::int64_t>();
  const std::string text = request.http.param(name);
  errno = 0;
  char* end = nullptr;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || errno != 0 || *end != '\0' ||
      std::isspace(static_cast<unsigned char>(text[0]))) {
    return badRequest(std::string(name) + ": Invalid value: \"" + text +
                      "\": must be an integer (strconv.ParseInt: parsing \"" + text +
                      "\": " + (errno == ERANGE ? "value out of range" : "invalid syntax") + ")");
  }
  return std::optional<std::int64_t>(value);
}

ApiResult<std::optional<Revision>> resourceVersionParam(const RestRequest& request) {
  const std::string text = request.http.param("resourceVersion");
  if (text.empty()) return std::optional<Revision>();
  errno = 0;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || !std::isdigit(static_cast<unsigned char>(text[0])) ||
      value > static_cast<unsigned long long>(std::numeric_limits<Revision>::max())) {
    return badRequest("invalid resource version: resourceVersion: Invalid value: \"" + text +
                      "\": must be a non-negative integer");
  }
  return std::optional<Revision>(static_cast<Revision>(value));
}

std::optional<ApiError> checkResourceVersionMatch(const RestRequest& request) {
  const std::string match = request.http.param("resourceVersionMatch");
  if (match.empty()) return std::nullopt;
  const std::string rv = request.http.param("resourceVersion");
  std::vector<Cause> causes;
  if (rv.empty()) {
    causes.push_back({"FieldValueForbidden",
                      "Forbidden: resourceVersionMatch is forbidden unless resourceVersion is "
                      "provided",
                      "resourceVersionMatch"});
  }
  if (!request.http.param("continue").empty()) {
    causes.push_back({"FieldValueForbidden",
                      "Forbidden: resourceVersionMatch is forbidden when continue is provided",
                      "resourceVersionMatch"});
  }
  if (match != "Exact" && match != "NotOlderThan") {
    causes.push_back({"FieldValueNotSupported",
                      "Unsupported value: \"" + match +
                          "\": supported values: \"Exact\", \"NotOlderThan\", \"\"",
                      "resourceVersionMatch"});
  }
  if (match == "Exact" && rv == "0") {
    causes.push_back({"FieldValueForbidden",
                      "Forbidden: resourceVersionMatch \"exact\" is forbidden for "
                      "resourceVersion \"0\"",
                      "resourceVersionMatch"});
  }
  if (causes.empty()) return std::nullopt;
  return invalid(ResourceKind{.group = "meta.k8s.io", .kind = "ListOptions"}, "", causes);
}

ApiError tooLargeResourceVersion(Revision wanted, Revision current) {
  return statusError(
      504, "Timeout",
      "Too large resource version: " + std::to_string(wanted) +
          ", current: " + std::to_string(current),
      {{"causes", nlohmann::json::array({{{"reason", "ResourceVersionTooLarge"},
                                          {"message", "Too large resource version"}}})},
       {"retryAfterSeconds", 1}});
}

std::string encodeContinue(Revision revision, const std::string& ns, const std::string& name) {
  nlohmann::json token = {{"v", "meta.k8s.io/v1"}, {"rv", revision}, {"start", ns + "/" + name}};
  return encodeBase64Url(token.dump());
}

std::optional<ContinuePoint> decodeContinue(const std::string& token) {
  auto text = decodeBase64Url(token);
  if (!text) return std::nullopt;
  auto untrusted = parseUntrustedJson(*text);
  if (!untrusted) return std::nullopt;
  const nlohmann::json& parsed = untrusted.value();
  if (!parsed.is_object() || !parsed.contains("rv") || !parsed["rv"].is_number_integer() ||
      !parsed.contains("start") || !parsed["start"].is_string())
    return std::nullopt;
  std::string start = parsed["start"];
  auto slash = start.find('/');
  if (slash == std::string::npos) return std::nullopt;
  return ContinuePoint{parsed["rv"].get<Revision>(), start.substr(0, slash),
                       start.substr(slash + 1)};
}

}  // namespace troupe::apiserver
