#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "common/result.h"
#include "kube/kube_client.h"

// What `kubectl troupe` reads from the API: the objects of the kinds a command asks for,
// read once through the Kubernetes client (kube/), so the plugin works against `troupe
// serve` and a real cluster alike and never needs more than read access.
namespace troupe::cli {

struct ClusterObjects {
  std::vector<nlohmann::json> queues;
  std::vector<nlohmann::json> training_jobs;
  std::vector<nlohmann::json> pod_groups;
  std::vector<nlohmann::json> pods;  // those with spec.schedulerName troupe
  std::vector<nlohmann::json> nodes;
  std::vector<nlohmann::json> priority_classes;
  double now = 0;  // seconds since the epoch, when read
  // Kinds the caller may not list (403), as "nodes: <the server's message>": the report
  // goes on without them and says so.
  std::vector<std::string> not_readable;
};

struct Kinds {
  bool queues = false;
  bool jobs = false;  // TrainingJobs, PodGroups and PriorityClasses
  bool pods = false;
  bool nodes = false;
};

// Lists every kind `kinds` names in `ns` ("" : every namespace). A failure other than 403
// (the server unreachable, the token refused) is an error naming the kind.
Result<ClusterObjects> readClusterObjects(kube::KubeClient& client, const Kinds& kinds,
                                          const std::string& ns);

}  // namespace troupe::cli
