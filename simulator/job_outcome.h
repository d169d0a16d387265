#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace troupe::simulator {

// What happened to one trace job in a replay. Times are seconds since trace start.
struct JobOutcome {
  std::string id;
  std::string queue;  // the queue it ran in (after the default-queue rule)
  int gpus = 0;
  // GPUs asked in thousandths: 1000 x gpus, or the fraction of a job sharing one GPU.
  int64_t gpu_milli = 0;
  int pods = 0;
  int64_t submit_s = 0;
  int64_t duration_s = 0;  // work, as given by the trace
  int64_t start_s = -1;    // first start; -1 if it never started
  int64_t end_s = -1;      // completion; -1 if it never finished
  int preemptions = 0;
  int resizes = 0;
  // Seconds of run time redone because a preemption rolled the job back to its last
  // checkpoint (summed over preemptions).
  int64_t lost_work_s = 0;
  // Seconds it waited while holding a backfill reservation (its reason Reserved), summed
  // over its waits.
  int64_t reserved_s = 0;

  bool finished() const { return end_s >= 0; }
  int64_t jctSeconds() const { return end_s - submit_s; }
  int64_t queueDelaySeconds() const { return start_s - submit_s; }
};

// One stretch of time a job held GPUs on nodes without change. A job has several when
// it is preempted or resized.
struct RunSegment {
  size_t job = 0;  // index into the outcomes
  int64_t start_s = 0;
  int64_t end_s = 0;
  // (node index, GPUs held there in thousandths: 1000 per whole GPU, a share's fraction)
  // pairs, node indexes into ClusterSpec::nodes.
  std::vector<std::pair<int, int64_t>> placement;

  int64_t gpuMilli() const {
    int64_t total = 0;
    for (const auto& [node, milli] : placement) total += milli;
    return total;
  }
};

}  // namespace troupe::simulator
