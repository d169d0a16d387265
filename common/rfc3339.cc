#include "common/rfc3339.h"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>

namespace troupe {
namespace {

std::tm utc(Time t) {
  const std::time_t seconds = Clock::to_time_t(t);
  std::tm parts{};
  gmtime_r(&seconds, &parts);
  return parts;
}

// The `n` digits at text[at..], as a number; nullopt unless all are digits.
std::optional<int> digitsAt(std::string_view text, std::size_t at, std::size_t n) {
  if (at + n > text.size()) return std::nullopt;
  int value = 0;
  for (std::size_t i = at; i < at + n; ++i) {
    const char c = text[i];
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

}  // namespace

std::string formatRfc3339(Time t, int fraction_digits) {
  const auto since = std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch());
  auto nanos = since.count() % 1'000'000'000;
  if (nanos < 0) nanos += 1'000'000'000;
  const std::tm p =
      utc(t - std::chrono::duration_cast<Clock::duration>(std::chrono::nanoseconds(nanos)));
  std::string out = fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}", p.tm_year + 1900,
                                p.tm_mon + 1, p.tm_mday, p.tm_hour, p.tm_min, p.tm_sec);
  fraction_digits = std::clamp(fraction_digits, 0, 9);
  if (fraction_digits > 0) {
    const std::string nine = fmt::format("{:09}", nanos);
    out += '.';
    out.append(nine, 0, static_cast<std::size_t>(fraction_digits));
  }
  out += 'Z';
  return out;
}

std::optional<Time> parseRfc3339(std::string_view text) {
  // "YYYY-MM-DDTHH:MM:SS" is 19 characters; the zone follows, a fraction may come first.
  const auto year = digitsAt(text, 0, 4), month = digitsAt(text, 5, 2), day = digitsAt(text, 8, 2),
             hour = digitsAt(text, 11, 2), minute = digitsAt(text, 14, 2),
             second = digitsAt(text, 17, 2);
  if (!year || !month || !day || !hour || !minute || !second || text[4] != '-' || text[7] != '-' ||
      (text[10] != 'T' && text[10] != 't' && text[10] != ' ') || text[13] != ':' || text[16] != ':')
    return std::nullopt;
  if (*month < 1 || *month > 12 || *day < 1 || *day > 31 || *hour > 23 || *minute > 59 ||
      *second > 60)
    return std::nullopt;
  std::size_t at = 19;
  std::int64_t nanos = 0;
  if (at < text.size() && text[at] == '.') {
    ++at;
    int digits = 0;
    for (; at < text.size() && text[at] >= '0' && text[at] <= '9'; ++at, ++digits)
      if (digits < 9) nanos = nanos * 10 + (text[at] - '0');
    if (digits == 0 || digits > 9) return std::nullopt;
    for (int d = digits; d < 9; ++d) nanos *= 10;
  }
  std::int64_t offset = 0;  // seconds east of UTC
  if (at + 1 == text.size() && (text[at] == 'Z' || text[at] == 'z')) {
    // UTC
  } else if (at + 6 == text.size() && (text[at] == '+' || text[at] == '-') && text[at + 3] == ':') {
    const auto hh = digitsAt(text, at + 1, 2), mm = digitsAt(text, at + 4, 2);
    if (!hh || !mm || *hh > 23 || *mm > 59) return std::nullopt;
    offset = (text[at] == '+' ? 1 : -1) * (*hh * 3600 + *mm * 60);
  } else {
    return std::nullopt;
  }
  std::tm parts{};
  parts.tm_year = *year - 1900;
  parts.tm_mon = *month - 1;
  parts.tm_mday = *day;
  parts.tm_hour = *hour;
  parts.tm_min = *minute;
  parts.tm_sec = *second;
  const std::time_t seconds = timegm(&parts) - offset;
  return Clock::from_time_t(seconds) +
         std::chrono::duration_cast<Clock::duration>(std::chrono::nanoseconds(nanos));
}

}  // namespace troupe
