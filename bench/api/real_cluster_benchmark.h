#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "common/result.h"

// `troupe bench scheduler --kubeconfig`: a scheduler beside a real kube-apiserver, measured
// as a user comparing schedulers measures it (kube-scheduler's scheduler_perf
// SchedulingBasic). The benchmark creates GPU nodes as API objects (no kubelets), then
// 1-GPU pods for the scheduler under test, starts that scheduler itself (so that it knows
// its process), and reads what the pods cost: pods bound a second, the API server's writes
// (its `apiserver_request_total`), and the CPU and memory of the scheduler, the API server
// and etcd from /proc. The cluster should be fresh: what it already holds is listed by the
// scheduler and counted in its figures.
namespace troupe::bench {

enum class RealClusterScenario {
  // Every pod created first, then the scheduler started: the clock runs from its start.
  BacklogDrain,
  // The scheduler started and seen binding a first pod, then every pod created as fast as
  // the client connections go: the clock runs from the first create.
  CreateWhileScheduling,
};

struct RealClusterBenchOptions {
  std::string kubeconfig;
  RealClusterScenario scenario = RealClusterScenario::BacklogDrain;
  // "troupe": pods name Troupe as their scheduler and carry the queue label (each pod a gang
  // of one), and the benchmark creates the Queue. Anything else is the pods' schedulerName
  // ("default-scheduler": kube-scheduler's).
  std::string scheduler_name = "troupe";
  // Run with /bin/sh -c "exec <command>" once the workload is in place; its process is the
  // one measured, and it is stopped (SIGTERM) when every pod is bound.
  std::string scheduler_command;
  std::string scheduler_log;  // its output (empty: dropped)
  int apiserver_pid = 0;      // measured when > 0
  int etcd_pid = 0;
  int nodes = 1'000;
  int gpus_per_node = 16;
  int pods = 10'000;  // of one GPU each
  int threads = 8;    // client connections creating nodes and pods
  int timeout_seconds = 600;
};

struct ProcessCost {
  double cpu_seconds = 0;  // over the measured span
  int64_t peak_rss_bytes = 0;
};

struct RealClusterBenchResult {
  int nodes = 0;
  int pods = 0;
  int bound = 0;       // pods seen bound before the timeout
  double seconds = 0;  // clock start -> last bind seen
  double pods_per_second = 0;
  double create_seconds = 0;  // of the benchmark's pod creates
  ProcessCost scheduler;
  // The scheduler's resident memory grown over the span, a pod: the cost of the pods it
  // caches and tracks (CreateWhileScheduling only: a backlog is listed as it starts).
  double scheduler_bytes_per_pod = 0;
  ProcessCost apiserver;
  ProcessCost etcd;
  // Writes the API server served over the span, by "<VERB> <resource>[/<subresource>]",
  // the benchmark's own pod creates among them.
  std::map<std::string, int64_t> writes;
  int64_t benchmark_writes = 0;
};

Result<RealClusterBenchResult> runRealClusterBench(
    const RealClusterBenchOptions& options,
    const std::function<void(const std::string&)>& on_progress);

// Writes a bound pod, the benchmark's own creates left out.
double schedulerWritesPerPod(const RealClusterBenchResult& result);

std::string realClusterMarkdownHeader();
std::string realClusterMarkdownRow(const std::string& name, const RealClusterBenchResult& result);
// What the writes were, a bound pod, by kind: "POST pods/binding 1.00, POST events 1.00".
std::string realClusterWritesLine(const RealClusterBenchResult& result);

}  // namespace troupe::bench
