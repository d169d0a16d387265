#pragma once

#include <optional>
#include <string>
#include <string_view>

// The reconcile work queue's items: which object a reconcile brings to its spec, as one
// string ("TrainingJob:namespace/name"), so that the work queue's rule (never two workers on
// one item) holds per object.
namespace troupe::controllers {

enum class WorkKind { TrainingJob, PodGroup };

struct WorkItem {
  WorkKind kind;
  std::string key;  // "namespace/name"
};

std::string trainingJobItem(std::string_view key);
std::string podGroupItem(std::string_view key);
// nullopt for a string neither of the above made.
std::optional<WorkItem> parseWorkItem(std::string_view item);

}  // namespace troupe::controllers
