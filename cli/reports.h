#pragma once

#include <string>

#include "cli/cluster_objects.h"
#include "common/result.h"

// What each `kubectl troupe` command prints, as a function of the objects it read: pure,
// so that tests can check the words and numbers without a server.
namespace troupe::cli {

struct ReportOptions {
  std::string resource = "nvidia.com/gpu";  // the resource `queues` draws
  int bar_width = 24;
  bool color = false;
  bool all = false;  // `jobs`: finished gangs too
};

// `queues`: the tree with a usage bar, allocated / guaranteed / fair share / limit, the
// gangs waiting and running, then who borrows from whom. Reads queues and nodes.
std::string queuesReport(const ClusterObjects& objects, const ReportOptions& options);

// `why NAME`: the TrainingJob (else PodGroup) `ns/name`: its phase, wait and place in its
// queue's line, the pending reason with its numbers and arithmetic, and what would make
// it run. Reads jobs, queues and pods. NotFound when neither exists.
Result<std::string> whyReport(const ClusterObjects& objects, const std::string& ns,
                              const std::string& name, const ReportOptions& options);

// `top`: GPUs held (troupe.dev/gpu-indices of pods not finished) by queue, by namespace
// and by node, against the nodes' GPUs. Reads pods, jobs and nodes.
std::string topReport(const ClusterObjects& objects, const ReportOptions& options);

// `jobs`: every gang by queue with phase, pods, GPUs, priority, wait, estimated place in
// line and pending reason. Reads jobs.
std::string jobsReport(const ClusterObjects& objects, const ReportOptions& options);

}  // namespace troupe::cli
