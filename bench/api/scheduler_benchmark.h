#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "bench/api/latency.h"
#include "common/result.h"

// `troupe bench scheduler`: the operator end to end. `troupe serve` with its in-process
// operator on a generated cluster; TrainingJobs created over HTTPS; pods seen bound
// through a watch.
namespace troupe::bench {

// What the benchmark creates for each job: a TrainingJob (the user's path: the operator
// makes its PodGroup, Service and pods), or a PodGroup and its pods made by the benchmark
// itself, as another operator's pods join Troupe (the scheduler alone, as kube-scheduler's
// SchedulingBasic creates pods).
// LonePods: each single-pod job is a pod of its own that names its queue (a gang of one, as
// kube-scheduler's pods are), the gangs a PodGroup and its pods as with Pods.
enum class BenchWorkload { TrainingJobs, Pods, LonePods };

struct SchedulerBenchOptions {
  BenchWorkload workload = BenchWorkload::TrainingJobs;
  int nodes = 5'000;  // 8 GPUs each, 16 nodes a rack
  int jobs = 50'000;  // single-pod TrainingJobs
  int gangs = 500;    // TrainingJobs of `gang_size` pods
  int gang_size = 100;
  int backlog = 20'000;       // single-pod jobs held in a queue, then released at once (0: none)
  int threads = 8;            // client connections creating jobs
  bool kubelets = true;       // run the simulated kubelets in the server
  double sim_speed = 100;     // of the simulated kubelets
  int timeout_seconds = 600;  // per phase, for every pod to be bound
  int reclaim_wait_seconds = 10;  // for a reclaiming job's pod to be bound
  std::string crd_dir;
  std::string serve_log;  // keep the server's log in this file (empty: dropped)
  std::string serve_log_level = "info";
  // The in-process operator's user in the server's request log, whose writes are counted.
  std::string operator_user;
};

inline constexpr const char* kBacklogPhaseName = "backlog released, timed from the release";

// One phase: jobs created as fast as `threads` connections go, every pod waited for. Of the
// backlog, the clock starts when the queue's limit is lifted, and `create_to_bound` is from
// that moment.
struct SchedulingPhase {
  std::string name;
  int jobs = 0;
  int pods = 0;
  int bound = 0;  // pods seen bound before the timeout
  double jobs_created_per_second = 0;
  double pods_bound_per_second = 0;  // bound / (last bind seen - first create sent)
  double seconds = 0;                // first create sent -> last bind seen
  LatencySummary create_to_bound;    // job create sent -> its pod seen with spec.nodeName
  // CPU seconds over the same span (to the moment every pod was seen bound): `troupe serve`
  // (the server, its store, the operator, the kubelets) and this benchmark (its client
  // connections and the watch that sees the binds). Both run on the same cores, so on a
  // saturated machine their sum a pod is what the rate costs.
  double server_cpu_seconds = 0;
  double client_cpu_seconds = 0;
  // Revisions the store committed over the same span: every durable write, whoever made it
  // (the benchmark's creates, the operator's objects, bindings, status writes and Events,
  // the kubelets' reports and node heartbeats, deletions). Over the seconds, the write rate
  // the whole chain reached; over the pods bound, a lower bound of what one pod costs the
  // store, since the writes that follow the last binds (their kubelets' reports, their
  // jobs' Running status) fall after the span.
  int64_t writes = 0;
  // The operator's own writes from the phase's start until they stop coming after its last
  // bind (a second without one, at most 10 s), from the server's request log, by
  // "<verb> <resource>[/<subresource>]". Status written later (jobs that start running
  // after that) falls outside.
  std::map<std::string, int64_t> operator_writes;
};

// One job in a queue guaranteed 8 GPUs (one node), while another queue borrows the rest.
struct ReclaimAttempt {
  int gpus = 0;         // the job asks for this many
  bool bound = false;   // within the reclaim wait
  double ms = 0;        // its create sent -> its pod seen bound
  int preempted = 0;    // borrowing pods deleted meanwhile
  std::string pending;  // the job's status.pending message when it was not bound
};

struct SchedulerBenchResult {
  int nodes = 0;
  int gpus = 0;
  SchedulingPhase single;
  SchedulingPhase gangs;
  SchedulingPhase backlog;  // jobs == 0 when not run
  // A queue borrowing every GPU in 8-GPU pods, then a job of 1 GPU (the target), then,
  // that one deleted, a job of 8 GPUs: the smallest victim frees exactly what it asks.
  int borrower_pods_bound = 0;  // 8-GPU pods the borrowing queue holds before the reclaim
  ReclaimAttempt one_gpu;
  ReclaimAttempt one_node;
  int64_t rss_bytes = 0;  // of the server (API server + operator + kubelets), after the reclaim
  int64_t hwm_bytes = 0;
};

// `on_progress` gets one line per step, for the impatient.
Result<SchedulerBenchResult> runSchedulerBench(
    const SchedulerBenchOptions& options,
    const std::function<void(const std::string&)>& on_progress);

// Durable writes the store committed over a phase, a pod bound and a second.
double writesPerPod(const SchedulingPhase& phase);
double writesPerSecond(const SchedulingPhase& phase);
// The operator's writes over a phase, a pod bound: all of them, and those to the pods' own
// objects (pods, bindings, groups, jobs, Events: all but the Queues' status and annotations,
// written per queue, not per pod).
double operatorWritesPerPod(const SchedulingPhase& phase);
double operatorPodWritesPerPod(const SchedulingPhase& phase);
// One line of what the operator wrote a pod in the phase, by kind.
std::string operatorWritesLine(const SchedulingPhase& phase);

std::string schedulerMarkdownHeader();
std::string schedulerMarkdownRow(const SchedulingPhase& phase);

}  // namespace troupe::bench
