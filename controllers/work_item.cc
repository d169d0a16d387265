#include "controllers/work_item.h"

namespace troupe::controllers {
namespace {

constexpr std::string_view kJobPrefix = "TrainingJob:";
constexpr std::string_view kGroupPrefix = "PodGroup:";

}  // namespace

std::string trainingJobItem(std::string_view key) {
  return std::string(kJobPrefix) + std::string(key);
}

std::string podGroupItem(std::string_view key) {
  return std::string(kGroupPrefix) + std::string(key);
}

std::optional<WorkItem> parseWorkItem(std::string_view item) {
  if (item.starts_with(kJobPrefix))
    return WorkItem{WorkKind::TrainingJob, std::string(item.substr(kJobPrefix.size()))};
  if (item.starts_with(kGroupPrefix))
    return WorkItem{WorkKind::PodGroup, std::string(item.substr(kGroupPrefix.size()))};
  return std::nullopt;
}

}  // namespace troupe::controllers
