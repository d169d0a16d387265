#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

// What `kubectl troupe why` says about a waiting gang: the arithmetic behind its pending
// reason, from the numbers the scheduler wrote into status.pending (docs/api.md), and what
// would make it run.
namespace troupe::cli {

struct PendingNumbers {
  std::string reason;
  std::string message;
  std::string queue;
  std::string resource;  // the gang's dominant resource, which the queue numbers are in
  std::optional<double> request, allocated, guaranteed, fair_share, limit;
  // status.pending.limitedBy: the limit that binds (QueueAtLimit, Inadmissible), perhaps an
  // ancestor's ("" for the cluster), in its own resource.
  bool limited = false;
  std::string limited_queue;
  std::string limited_resource;
  double limited_holds = 0, limited_kept = 0, limited_request = 0, limited_limit = 0;
};

PendingNumbers pendingNumbers(const nlohmann::json& pending);

// The comparison that holds the gang back, e.g. "allocated + request = 24 + 8 = 32 >
// limit 24"; empty when the reason is not a matter of the queue's numbers.
std::string pendingArithmetic(const PendingNumbers& numbers);

// Each way out, as a sentence: "8 nvidia.com/gpu of queue team-a's admitted gangs
// finishing, or being preempted by higher-priority work".
std::vector<std::string> pendingRemedies(const PendingNumbers& numbers);

}  // namespace troupe::cli
