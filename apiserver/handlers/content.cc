#include "apiserver/handlers/content.h"

#include <algorithm>
#include <cctype>

namespace troupe::apiserver {

namespace {
// Without the optional whitespace (OWS: spaces and tabs) HTTP allows around a value.
std::string trimOws(const std::string& s) {
  auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  auto e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}
}  // namespace

std::vector<MediaRange> parseAccept(const std::string& accept) {
  std::vector<MediaRange> out;
  std::size_t start = 0;
  while (start <= accept.size()) {
    auto comma = accept.find(',', start);
    std::string part =
        accept.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    start = comma == std::string::npos ? accept.size() + 1 : comma + 1;
    if (trimOws(part).empty()) continue;
    MediaRange range;
    std::size_t p = 0;
    bool first = true;
    while (p <= part.size()) {
      auto semi = part.find(';', p);
      std::string piece =
          trimOws(part.substr(p, semi == std::string::npos ? std::string::npos : semi - p));
      p = semi == std::string::npos ? part.size() + 1 : semi + 1;
      if (first) {
        range.type = piece;
        first = false;
        continue;
      }
      auto eq = piece.find('=');
      if (eq == std::string::npos) continue;
      std::string key = trimOws(piece.substr(0, eq)), value = trimOws(piece.substr(eq + 1));
      if (key == "as") range.as = value;
      if (key == "g") range.g = value;
      if (key == "v") range.v = value;
      if (key == "q") range.q = std::atof(value.c_str());
    }
    out.push_back(range);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const MediaRange& a, const MediaRange& b) { return a.q > b.q; });
  return out;
}

BodyFormat bodyFormatOf(const std::string& content_type) {
  std::string type = trimOws(content_type.substr(0, content_type.find(';')));
  for (auto& c : type) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (type.empty() || type == "application/json") return BodyFormat::Json;
  if (type == "application/yaml") return BodyFormat::Yaml;
  if (type == "application/vnd.kubernetes.protobuf") return BodyFormat::Protobuf;
  return BodyFormat::Unsupported;
}

Representation negotiate(const std::string& accept, bool discovery) {
  if (trimOws(accept).empty()) return Representation::Object;
  for (const auto& range : parseAccept(accept)) {
    bool json = range.type == "application/json" || range.type == "*/*" ||
                range.type == "application/*" || range.type == "application/yaml";
    if (!json) continue;
    if (range.as.empty()) return Representation::Object;
    if (range.as == "Table" && range.g == "meta.k8s.io" &&
        (range.v == "v1" || range.v == "v1beta1"))
      return Representation::Table;
    if ((range.as == "PartialObjectMetadata" || range.as == "PartialObjectMetadataList") &&
        range.g == "meta.k8s.io" && range.v == "v1")
      return Representation::PartialObjectMetadata;
    if (discovery && range.as == "APIGroupDiscoveryList" && range.g == "apidiscovery.k8s.io") {
      if (range.v == "v2") return Representation::AggregatedDiscoveryV2;
      if (range.v == "v2beta1") return Representation::AggregatedDiscoveryV2Beta1;
    }
  }
  return Representation::Unacceptable;
}

}  // namespace troupe::apiserver
