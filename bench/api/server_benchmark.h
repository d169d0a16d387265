#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "bench/api/latency.h"
#include "common/result.h"

// `troupe bench server`: the embedded API server (`troupe serve --no-operator
// --no-kubelets`) driven over HTTPS by several client connections.
namespace troupe::bench {

struct ServerBenchOptions {
  std::vector<int> objects = {10'000, 100'000};  // ConfigMaps stored, one server per value
  int pods = 5'000;                              // pods created, then bound, per server
  int nodes = 100;                               // simulated nodes the pods are bound to
  int threads = 32;                              // client connections of the create and bind phases
  int watchers = 1'000;                          // watch streams open on one collection
  int watch_events = 500;                        // objects written while they watch
  double watch_rate = 50;                        // of those writes per second
  std::string crd_dir;
};

struct ServerBenchRow {
  int objects = 0;
  double creates_per_second = 0;  // ConfigMap creates, `threads` connections
  LatencySummary create_latency;
  double pod_creates_per_second = 0;
  double bindings_per_second = 0;  // POST pods/binding, `threads` connections
  int watchers = 0;
  LatencySummary watch_from_ack;   // write acknowledged -> event received, every watcher
  LatencySummary watch_from_send;  // write sent -> event received
  double watch_delivered = 0;      // fraction of the expected events received
  int64_t rss_bytes = 0;           // of the server, at the end
  int64_t hwm_bytes = 0;
};

// Starts one server per `objects` value and measures it; calls `on_row` as each row is
// done. Fails if a server does not start or a request fails.
Result<std::vector<ServerBenchRow>> runServerBench(
    const ServerBenchOptions& options, const std::function<void(const ServerBenchRow&)>& on_row);

std::string serverMarkdownHeader();
std::string serverMarkdownRow(const ServerBenchRow& row);

}  // namespace troupe::bench
