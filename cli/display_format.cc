#include "cli/display_format.h"

#include <fmt/format.h>

#include <cmath>

namespace troupe::cli {
namespace {

std::string trimmed(double value, int decimals) {
  std::string text = fmt::format("{:.{}f}", value, decimals);
  if (text.find('.') != std::string::npos) {
    while (text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
  }
  return text == "-0" ? "0" : text;
}

}  // namespace

std::string amountText(const std::string& resource, double amount) {
  const bool bytes = resource == "memory" || resource.find("storage") != std::string::npos;
  if (bytes && std::fabs(amount) >= 1024.0 * 1024 * 1024)
    return trimmed(amount / (1024.0 * 1024 * 1024), 1) + "Gi";
  if (bytes && std::fabs(amount) >= 1024.0 * 1024)
    return trimmed(amount / (1024.0 * 1024), 1) + "Mi";
  return trimmed(amount, 2);
}

std::string resourceLabel(const std::string& resource) {
  return resource == "nvidia.com/gpu" ? "GPU" : resource;
}

std::string durationText(double seconds) {
  if (!(seconds >= 0)) return "-";
  const long long s = static_cast<long long>(seconds);
  auto part = [](long long big, const char* big_unit, long long small, const char* small_unit) {
    return small ? fmt::format("{}{}{}{}", big, big_unit, small, small_unit)
                 : fmt::format("{}{}", big, big_unit);
  };
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return part(s / 60, "m", s % 60, "s");
  if (s < 86400) return part(s / 3600, "h", s / 60 % 60, "m");
  return part(s / 86400, "d", s / 3600 % 24, "h");
}

}  // namespace troupe::cli
