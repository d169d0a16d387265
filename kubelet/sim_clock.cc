#include "kubelet/sim_clock.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <ctime>

namespace troupe::kubelet {

Result<SimSpeed> SimSpeed::parse(double factor, const std::string& flag) {
  if (!std::isfinite(factor) || factor < 0.001 || factor > 100000) {
    return makeError(ErrorCode::Invalid, flag,
                     fmt::format("must be a number from 0.001 to 100000 (how many times faster "
                                 "than the wall clock simulated time passes), got {}",
                                 factor));
  }
  return SimSpeed(factor);
}

std::chrono::milliseconds SimSpeed::wallTime(double sim_seconds) const {
  if (!(sim_seconds > 0)) return std::chrono::milliseconds(0);
  double ms = std::round(sim_seconds * 1000.0 / factor_);
  // Capped at about 300 years so that the conversion cannot overflow.
  constexpr double kMaxMs = 1e13;
  return std::chrono::milliseconds(static_cast<std::int64_t>(std::min(ms, kMaxMs)));
}

namespace {

std::tm utc(Time t) {
  std::time_t seconds = Clock::to_time_t(t);
  std::tm parts{};
  gmtime_r(&seconds, &parts);
  return parts;
}

}  // namespace

std::string formatTime(Time t) {
  std::tm p = utc(t);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", p.tm_year + 1900, p.tm_mon + 1,
                     p.tm_mday, p.tm_hour, p.tm_min, p.tm_sec);
}

std::string formatMicroTime(Time t) {
  auto since = t.time_since_epoch();
  auto micros = std::chrono::duration_cast<std::chrono::microseconds>(since).count() % 1000000;
  if (micros < 0) micros += 1000000;
  std::tm p = utc(t);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}Z", p.tm_year + 1900, p.tm_mon + 1,
                     p.tm_mday, p.tm_hour, p.tm_min, p.tm_sec, micros);
}

std::optional<Time> parseTime(const std::string& text) {
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, used = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &year, &month, &day, &hour, &minute,
                  &second, &used) != 6 ||
      used != 19) {
    return std::nullopt;
  }
  std::size_t at = 19;
  std::int64_t micros = 0;
  if (at < text.size() && text[at] == '.') {
    ++at;
    int digits = 0;
    while (at < text.size() && std::isdigit(static_cast<unsigned char>(text[at]))) {
      if (digits < 6) micros = micros * 10 + (text[at] - '0');
      ++digits;
      ++at;
    }
    if (digits == 0) return std::nullopt;
    for (int d = digits; d < 6; ++d) micros *= 10;
  }
  if (at + 1 != text.size() || text[at] != 'Z') return std::nullopt;
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60)
    return std::nullopt;
  std::tm parts{};
  parts.tm_year = year - 1900;
  parts.tm_mon = month - 1;
  parts.tm_mday = day;
  parts.tm_hour = hour;
  parts.tm_min = minute;
  parts.tm_sec = second;
  std::time_t seconds = timegm(&parts);
  return Clock::from_time_t(seconds) +
         std::chrono::duration_cast<Clock::duration>(std::chrono::microseconds(micros));
}

}  // namespace troupe::kubelet
