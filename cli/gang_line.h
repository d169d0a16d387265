#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "cli/cluster_objects.h"

// The gangs queues hold (TrainingJobs, and PodGroups of plain pods; a TrainingJob's own
// PodGroup is the job's), each waiting one with its estimated place in its queue's line:
// priority (high first), then time queued, then name, the order the engine admits one
// queue's gangs in when nothing else (starving gangs of other queues, backfill, a gang
// that does not fit) intervenes. The same reading as the dashboard's.
namespace troupe::cli {

struct Gang {
  std::string kind;  // "TrainingJob" or "PodGroup"
  std::string ns;
  std::string name;
  std::string queue;
  std::string phase;  // "" for a new gang without a decision yet
  std::string pods;   // "ready/wanted"
  double gpus = 0;    // nvidia.com/gpu the whole gang asks for
  std::string priority_class;
  long long priority = 0;
  const nlohmann::json* pending = nullptr;  // status.pending, when set
  double queued_at = 0;                     // seconds since the epoch (queuedAt, else creation)
  double admitted_at = 0;                   // 0: not admitted
  bool waiting = false;                     // queued for admission
  bool finished = false;                    // Succeeded or Failed
  int position = 0;     // 1-based, among the waiting gangs of its queue; 0 if not waiting
  int line_length = 0;  // waiting gangs of its queue

  std::string key() const { return ns + "/" + name; }
};

// Every gang, in queue then line order: waiting ones by position, then the admitted ones,
// then the finished ones, each by name.
std::vector<Gang> gangsOf(const ClusterObjects& objects);

// nvidia.com/gpu the pod template asks for (requests, else limits), summed over containers.
double templateGpus(const nlohmann::json& pod_template);

}  // namespace troupe::cli
