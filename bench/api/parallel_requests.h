#pragma once

#include <functional>
#include <vector>

#include "bench/api/serve_child.h"
#include "common/result.h"

// Many requests to an API server (the child server, or any) from several connections at once.
namespace troupe::bench {

struct ParallelRun {
  double seconds = 0;              // wall time of the whole run
  std::vector<double> latency_ms;  // of each request, by index
};

// Calls `request(client, i)` for every i in [0, count) from `threads` threads, each with a
// kube client (and so connections) of its own; a thread takes the next index when it is
// done with one. Stops at the first failed request and returns its error, naming i.
Result<ParallelRun> runParallel(const kube::ClientConfig& config, int threads, int count,
                                const std::function<Result<void>(kube::KubeClient&, int)>& request);
// The same, to the child server.
Result<ParallelRun> runParallel(const ServeChild& server, int threads, int count,
                                const std::function<Result<void>(kube::KubeClient&, int)>& request);

}  // namespace troupe::bench
