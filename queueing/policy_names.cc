#include "queueing/policy_names.h"

#include <array>
#include <utility>

namespace troupe::queueing {
namespace {

constexpr std::array<std::pair<PolicyKind, const char*>, 6> kNames = {{
    {PolicyKind::Fifo, "fifo"},
    {PolicyKind::Troupe, "troupe"},
    {PolicyKind::YarnCapacity, "yarn-cs"},
    {PolicyKind::Kueue, "kueue"},
    {PolicyKind::Tiresias, "tiresias"},
    {PolicyKind::Srtf, "srtf"},
}};

}  // namespace

const char* policyKindName(PolicyKind kind) {
  for (const auto& [k, name] : kNames)
    if (k == kind) return name;
  return "unknown";
}

std::optional<PolicyKind> policyKindNamed(std::string_view name) {
  for (const auto& [k, n] : kNames)
    if (name == n) return k;
  return std::nullopt;
}

std::string policyKindNames() {
  std::string out;
  for (const auto& [k, name] : kNames) {
    if (!out.empty()) out += ",";
    out += name;
  }
  return out;
}

}  // namespace troupe::queueing
