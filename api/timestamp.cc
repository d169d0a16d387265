#include "api/timestamp.h"

#include <fmt/format.h>

#include <ctime>
#include <regex>

#include "api/field_error.h"

namespace troupe::api {

std::string formatTimestamp(Time time) {
  std::time_t t = Clock::to_time_t(time);
  std::tm tm{};
  gmtime_r(&t, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

Result<Time> parseTimestamp(std::string_view text, std::string_view field) {
  static const std::regex re(
      R"(^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.(\d{1,9}))?([Zz]|([+-])(\d{2}):(\d{2}))$)");
  std::cmatch m;
  std::string path(field.empty() ? "timestamp" : field);
  if (!std::regex_match(text.begin(), text.end(), m, re)) {
    return invalid(path, std::string(text),
                   fmt::format("{} in body must be of type date-time: {}", path, goQuote(text)));
  }
  std::tm tm{};
  tm.tm_year = std::stoi(m[1]) - 1900;
  tm.tm_mon = std::stoi(m[2]) - 1;
  tm.tm_mday = std::stoi(m[3]);
  tm.tm_hour = std::stoi(m[4]);
  tm.tm_min = std::stoi(m[5]);
  tm.tm_sec = std::stoi(m[6]);
  if (tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 || tm.tm_min > 59 ||
      tm.tm_sec > 60) {
    return invalid(path, std::string(text), "is not a valid date and time");
  }
  std::time_t t = timegm(&tm);
  if (m[10].matched) {
    int offset = std::stoi(m[11]) * 3600 + std::stoi(m[12]) * 60;
    t += m[10] == "+" ? -offset : offset;
  }
  Time out = Clock::from_time_t(t);
  if (m[8].matched) {
    std::string frac = m[8].str();
    frac.resize(9, '0');
    out += std::chrono::duration_cast<Clock::duration>(std::chrono::nanoseconds(std::stoll(frac)));
  }
  return out;
}

void validateTimestamp(const std::string& value, const std::string& path,
                       std::vector<Error>& errors) {
  if (value.empty()) return;
  auto parsed = parseTimestamp(value, path);
  if (!parsed) errors.push_back(parsed.error());
}

}  // namespace troupe::api
