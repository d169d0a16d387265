#include "bench/api/apiserver_request_counts.h"

#include <cstdlib>

namespace troupe::bench {
namespace {

constexpr std::string_view kCounter = "apiserver_request_total{";

// The value of label `name` in `labels` (the text between the braces), or "".
std::string labelValue(std::string_view labels, std::string_view name) {
  std::size_t at = 0;
  while (at < labels.size()) {
    const std::size_t eq = labels.find('=', at);
    if (eq == std::string_view::npos || eq + 1 >= labels.size() || labels[eq + 1] != '"') break;
    const std::string_view key = labels.substr(at, eq - at);
    std::string value;
    std::size_t i = eq + 2;
    for (; i < labels.size() && labels[i] != '"'; ++i) {
      if (labels[i] == '\\' && i + 1 < labels.size()) ++i;
      value += labels[i];
    }
    if (key == name) return value;
    at = i + 1;
    if (at < labels.size() && labels[at] == ',') ++at;
  }
  return "";
}

bool isWrite(std::string_view key) {
  const std::string_view verb = key.substr(0, key.find(' '));
  return verb == "POST" || verb == "PUT" || verb == "PATCH" || verb == "APPLY" ||
         verb == "DELETE" || verb == "DELETECOLLECTION";
}

}  // namespace

std::map<std::string, int64_t> apiserverRequestCounts(std::string_view metrics_text) {
  std::map<std::string, int64_t> counts;
  std::size_t at = 0;
  while (at < metrics_text.size()) {
    std::size_t end = metrics_text.find('\n', at);
    if (end == std::string_view::npos) end = metrics_text.size();
    const std::string_view line = metrics_text.substr(at, end - at);
    at = end + 1;
    if (line.substr(0, kCounter.size()) != kCounter) continue;
    const std::size_t close = line.rfind('}');
    if (close == std::string_view::npos) continue;
    const std::string_view labels = line.substr(kCounter.size(), close - kCounter.size());
    const std::string value(line.substr(close + 1));
    std::string key = labelValue(labels, "verb") + " " + labelValue(labels, "resource");
    if (std::string sub = labelValue(labels, "subresource"); !sub.empty()) key += "/" + sub;
    counts[key] += static_cast<int64_t>(std::strtod(value.c_str(), nullptr));
  }
  return counts;
}

std::map<std::string, int64_t> writesBetween(const std::map<std::string, int64_t>& before,
                                             const std::map<std::string, int64_t>& after) {
  std::map<std::string, int64_t> grew;
  for (const auto& [key, count] : after) {
    if (!isWrite(key)) continue;
    auto it = before.find(key);
    const int64_t delta = count - (it == before.end() ? 0 : it->second);
    if (delta > 0) grew[key] = delta;
  }
  return grew;
}

}  // namespace troupe::bench
