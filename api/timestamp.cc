#include "api/timestamp.h"

#include <fmt/format.h>

#include "api/field_error.h"
#include "common/rfc3339.h"

namespace troupe::api {

std::string formatTimestamp(Time time) { return formatRfc3339(time); }

Result<Time> parseTimestamp(std::string_view text, std::string_view field) {
  if (auto t = parseRfc3339(text)) return *t;
  std::string path(field.empty() ? "timestamp" : field);
  return invalid(path, std::string(text),
                 fmt::format("{} in body must be of type date-time: {}", path, goQuote(text)));
}

void validateTimestamp(const std::string& value, const std::string& path,
                       std::vector<Error>& errors) {
  if (value.empty()) return;
  auto parsed = parseTimestamp(value, path);
  if (!parsed) errors.push_back(parsed.error());
}

}  // namespace troupe::api
