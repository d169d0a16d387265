#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>

#include "bench/api/scheduler_benchmark.h"
#include "bench/api/server_benchmark.h"
#include "bench/support/machine_info.h"
#include "cmd/commands.h"
#include "cmd/serve_operator_token.h"

namespace troupe::cmd {

using namespace troupe::bench;

namespace {

// Targets (docs/benchmarks.md).
constexpr double kWritesPerSecondTarget = 5000;
constexpr double kWatchP99TargetMs = 50;
constexpr int kWatchTargetWatchers = 1000;
constexpr double kBoundPerSecondTarget = 5000;
constexpr double kReclaimTargetMs = 1000;
// The operator's writes a lone pod: its binding and one Event, as kube-scheduler's pod.
constexpr double kLonePodWritesTarget = 2;
// The operator's writes a gang beside its bindings.
constexpr double kGangWritesTarget = 4;

const char* verdict(bool met) { return met ? "met" : "missed"; }

int runServer(ServerBenchOptions options) {
  if (options.objects.empty() ||
      *std::min_element(options.objects.begin(), options.objects.end()) < 1 || options.pods < 1 ||
      options.nodes < 1 || options.threads < 1 || options.watchers < 1 ||
      options.watch_events < 1 || !(options.watch_rate > 0)) {
    fmt::print(stderr,
               "troupe bench server: --objects, --pods, --nodes, --threads, --watchers, "
               "--watch-events and --watch-rate must be >= 1\n");
    return 2;
  }
  fmt::print("# troupe bench server\n\n");
  fmt::print("- machine: {}\n", describeMachine());
  fmt::print(
      "- server: troupe serve --no-operator --no-kubelets on 127.0.0.1 (HTTPS, SQLite), {} "
      "nodes; one fresh server per row\n",
      options.nodes);
  fmt::print(
      "- creates and bindings: {} client connections; {} pods created then bound; watch: "
      "{} streams on one collection, {} writes at {:.0f}/s\n\n",
      options.threads, options.pods, options.watchers, options.watch_events, options.watch_rate);
  fmt::print("{}", serverMarkdownHeader());
  std::fflush(stdout);
  auto rows = runServerBench(options, [](const ServerBenchRow& row) {
    fmt::print("{}", serverMarkdownRow(row));
    std::fflush(stdout);
  });
  if (!rows) {
    fmt::print(stderr, "troupe bench server: {}\n", rows.error().describe());
    return 1;
  }
  fmt::print("\nTargets:\n");
  for (const auto& row : *rows) {
    double writes = std::min(row.creates_per_second, row.pod_creates_per_second);
    fmt::print(
        "- {} stored objects: creates {:.0f}/s (ConfigMaps), {:.0f}/s (Pods) (target >= "
        "{:.0f}/s): {}\n",
        row.objects, row.creates_per_second, row.pod_creates_per_second, kWritesPerSecondTarget,
        verdict(writes >= kWritesPerSecondTarget));
    fmt::print(
        "- {} stored objects: watch p99 {:.2f} ms with {} watchers (target < {:.0f} ms "
        "with {}): {}\n",
        row.objects, row.watch_from_ack.p99_ms, row.watchers, kWatchP99TargetMs,
        kWatchTargetWatchers,
        row.watchers < kWatchTargetWatchers
            ? "not comparable (fewer watchers)"
            : verdict(row.watch_from_ack.p99_ms < kWatchP99TargetMs && row.watch_delivered >= 1.0));
  }
  return 0;
}

int runScheduler(const SchedulerBenchOptions& options) {
  if (options.nodes < 1 || options.jobs < 1 || options.gangs < 1 || options.gang_size < 1 ||
      options.threads < 1 || options.timeout_seconds < 1 || options.reclaim_wait_seconds < 1 ||
      !(options.sim_speed > 0)) {
    fmt::print(stderr,
               "troupe bench scheduler: --nodes, --jobs, --gangs, --gang-size, --threads, "
               "--timeout, --reclaim-wait and --sim-speed must be >= 1\n");
    return 2;
  }
  if (options.backlog < 0) {
    fmt::print(stderr, "troupe bench scheduler: --backlog must be >= 0 (0: no backlog phase)\n");
    return 2;
  }
  fmt::print("# troupe bench scheduler\n\n");
  fmt::print("- machine: {}\n", describeMachine());
  fmt::print(
      "- server: troupe serve with the in-process operator, simulated kubelets {}, on 127.0.0.1 "
      "(HTTPS for the benchmark's client, the loopback for the operator and kubelets; "
      "SQLite); {} nodes x 8 GPUs, 16 nodes a rack\n",
      options.kubelets ? fmt::format("on (sim speed {})", options.sim_speed) : "off",
      options.nodes);
  fmt::print(
      "- {} created from {} client connections; pods requesting 1 CPU each; binds seen "
      "through a watch\n\n",
      options.workload == BenchWorkload::TrainingJobs
          ? "jobs (TrainingJobs: the operator makes each PodGroup, Service and pod)"
      : options.workload == BenchWorkload::Pods
          ? "jobs (a PodGroup and its pods, made by the benchmark as another operator would)"
          : "jobs (single-pod jobs: a pod naming its queue, a gang of one; gangs: a PodGroup "
            "and its pods)",
      options.threads);
  std::fflush(stdout);
  auto result = runSchedulerBench(options, [](const std::string& line) {
    fmt::print(stderr, "troupe bench scheduler: {}\n", line);
  });
  if (!result) {
    fmt::print(stderr, "troupe bench scheduler: {}\n", result.error().describe());
    return 1;
  }
  fmt::print("{}", schedulerMarkdownHeader());
  fmt::print("{}", schedulerMarkdownRow(result->single));
  fmt::print("{}", schedulerMarkdownRow(result->gangs));
  const bool backlog_run = result->backlog.jobs > 0;
  if (backlog_run) fmt::print("{}", schedulerMarkdownRow(result->backlog));
  fmt::print("\n- reclaim: the borrowing queue held {} of {} GPUs in 8-GPU pods\n",
             result->borrower_pods_bound * 8, result->gpus);
  for (const auto* attempt : {&result->one_gpu, &result->one_node}) {
    fmt::print(
        "- reclaim: a {}-GPU job in a queue guaranteed 8 GPUs was {} ({} borrowing pods "
        "preempted)\n",
        attempt->gpus,
        attempt->bound ? fmt::format("bound after {:.1f} ms", attempt->ms)
                       : fmt::format("not bound within {} s: {}", options.reclaim_wait_seconds,
                                     attempt->pending),
        attempt->preempted);
  }
  constexpr double kMiB = 1024.0 * 1024.0;
  fmt::print("- server memory after the reclaim: RSS {:.0f} MiB, peak {:.0f} MiB\n",
             static_cast<double>(result->rss_bytes) / kMiB,
             static_cast<double>(result->hwm_bytes) / kMiB);
  fmt::print("\nThe operator's writes, from the server's request log (user {}):\n",
             options.operator_user);
  for (const auto* phase : {&result->single, &result->gangs, &result->backlog})
    if (phase->jobs > 0) fmt::print("{}", operatorWritesLine(*phase));
  // Every pod bound costs the store a number of durable writes (the job, its group and
  // pod, the binding, status writes, Events); at that cost the target is a write rate.
  fmt::print("\nWrites the store committed, and what the target asks at the same cost:\n");
  for (const auto* phase : {&result->single, &result->gangs, &result->backlog}) {
    if (phase->jobs == 0) continue;
    fmt::print(
        "- {}: {:.1f} writes a pod, {:.0f} writes/s; {:.0f} pods bound/s would take "
        "{:.0f} writes/s\n",
        phase->name, writesPerPod(*phase), writesPerSecond(*phase), kBoundPerSecondTarget,
        writesPerPod(*phase) * kBoundPerSecondTarget);
  }
  fmt::print("\nTargets:\n");
  for (const auto* phase : {&result->single, &result->gangs, &result->backlog}) {
    if (phase->jobs == 0) continue;
    fmt::print("- {}: {:.0f} pods bound/s (target >= {:.0f}/s): {}\n", phase->name,
               phase->pods_bound_per_second, kBoundPerSecondTarget,
               verdict(phase->bound == phase->pods &&
                       phase->pods_bound_per_second >= kBoundPerSecondTarget));
  }
  // kube-scheduler writes a binding and an Event a pod. A gang of one must cost no more; a
  // gang of N its N bindings and a few writes for the gang (status once per transition,
  // one Event per transition), however large N.
  if (options.workload == BenchWorkload::LonePods) {
    for (const auto* phase : {&result->single, &result->backlog}) {
      if (phase->jobs == 0) continue;
      fmt::print(
          "- {}: {:.2f} operator writes a pod, Queues' aside (target <= {:.2f}, "
          "kube-scheduler's): {}\n",
          phase->name, operatorPodWritesPerPod(*phase), kLonePodWritesTarget,
          verdict(operatorPodWritesPerPod(*phase) <= kLonePodWritesTarget));
    }
  }
  if (options.workload != BenchWorkload::TrainingJobs) {
    const double target = 1.0 + kGangWritesTarget / options.gang_size;
    fmt::print(
        "- {}: {:.2f} operator writes a pod, Queues' aside (target <= 1 + {:.0f}/{} = {:.2f}): "
        "{}\n",
        result->gangs.name, operatorPodWritesPerPod(result->gangs), kGangWritesTarget,
        options.gang_size, target, verdict(operatorPodWritesPerPod(result->gangs) <= target));
  }
  const bool full = result->borrower_pods_bound * 8 >= result->gpus;
  for (const auto* attempt : {&result->one_gpu, &result->one_node}) {
    fmt::print("- reclaim of {} GPU{}: {} (target < {:.0f} ms{}): {}\n", attempt->gpus,
               attempt->gpus == 1 ? "" : "s",
               attempt->bound ? fmt::format("{:.1f} ms", attempt->ms) : "not bound",
               kReclaimTargetMs, attempt->gpus == 1 ? "" : ", for comparison",
               full ? verdict(attempt->bound && attempt->ms < kReclaimTargetMs)
                    : "not measured (the borrowing queue did not fill the cluster in time)");
  }
  if (result->single.bound != result->single.pods || result->gangs.bound != result->gangs.pods ||
      result->backlog.bound != result->backlog.pods) {
    fmt::print(stderr, "troupe bench scheduler: not every pod was bound before the timeout\n");
    return 1;
  }
  return 0;
}

}  // namespace

void addApiBenchCommands(CLI::App& bench) {
  auto server = std::make_shared<ServerBenchOptions>();
  server->crd_dir = TROUPE_CRDS_DIR;
  auto* server_cmd = bench.add_subcommand(
      "server", "Embedded API server: creates/s, bindings/s, watch fan-out latency, memory");
  server_cmd->add_option("--objects", server->objects, "Stored ConfigMaps, one server per value")
      ->delimiter(',')
      ->capture_default_str();
  server_cmd->add_option("--pods", server->pods, "Pods created and then bound")
      ->capture_default_str();
  server_cmd->add_option("--nodes", server->nodes, "Simulated nodes the pods are bound to")
      ->capture_default_str();
  server_cmd->add_option("--threads", server->threads, "Client connections creating and binding")
      ->capture_default_str();
  server_cmd->add_option("--watchers", server->watchers, "Concurrent watch streams")
      ->capture_default_str();
  server_cmd->add_option("--watch-events", server->watch_events, "Writes while they watch")
      ->capture_default_str();
  server_cmd->add_option("--watch-rate", server->watch_rate, "Of those writes per second")
      ->capture_default_str();
  server_cmd->add_option("--crds", server->crd_dir, "Directory of the CRD manifests")
      ->capture_default_str();
  server_cmd->callback([server] { throw CommandExit{runServer(*server)}; });

  auto scheduler = std::make_shared<SchedulerBenchOptions>();
  scheduler->crd_dir = TROUPE_CRDS_DIR;
  scheduler->operator_user = kOperatorUser;
  auto* scheduler_cmd = bench.add_subcommand(
      "scheduler", "The operator end to end: pods bound/s, create-to-bound latency, reclaim time");
  scheduler_cmd->add_option("--nodes", scheduler->nodes, "Nodes of 8 GPUs")->capture_default_str();
  scheduler_cmd->add_option("--jobs", scheduler->jobs, "Single-pod TrainingJobs")
      ->capture_default_str();
  scheduler_cmd->add_option("--gangs", scheduler->gangs, "Gang TrainingJobs")
      ->capture_default_str();
  scheduler_cmd->add_option("--gang-size", scheduler->gang_size, "Pods of each gang")
      ->capture_default_str();
  scheduler_cmd
      ->add_option("--backlog", scheduler->backlog,
                   "Single-pod jobs held in a queue at its limit, then released at once (0: none)")
      ->capture_default_str();
  scheduler_cmd->add_option("--threads", scheduler->threads, "Client connections creating jobs")
      ->capture_default_str();
  scheduler_cmd
      ->add_option("--timeout", scheduler->timeout_seconds,
                   "Seconds each phase may take to bind every pod")
      ->capture_default_str();
  scheduler_cmd
      ->add_option("--reclaim-wait", scheduler->reclaim_wait_seconds,
                   "Seconds a reclaiming job may take to be bound")
      ->capture_default_str();
  scheduler_cmd->add_option("--sim-speed", scheduler->sim_speed, "Speed of the simulated kubelets")
      ->capture_default_str();
  scheduler_cmd->add_flag("--no-kubelets{false}", scheduler->kubelets,
                          "Run the server without its simulated kubelets");
  scheduler_cmd->add_option("--crds", scheduler->crd_dir, "Directory of the CRD manifests")
      ->capture_default_str();
  scheduler_cmd
      ->add_option("--workload", scheduler->workload,
                   "What each job is: trainingjobs (the default: the operator makes its "
                   "PodGroup, Service and pods), pods (the benchmark makes a PodGroup and "
                   "its pods) or lone-pods (single-pod jobs are pods naming their queue, "
                   "gangs as with pods)")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, BenchWorkload>{{"trainingjobs", BenchWorkload::TrainingJobs},
                                               {"pods", BenchWorkload::Pods},
                                               {"lone-pods", BenchWorkload::LonePods}},
          CLI::ignore_case));
  scheduler_cmd->add_option("--serve-log", scheduler->serve_log,
                            "Keep the server's log (with the operator's) in this file");
  scheduler_cmd
      ->add_option("--serve-log-level", scheduler->serve_log_level,
                   "The server's log level: debug, info, warn or error")
      ->capture_default_str();
  scheduler_cmd->callback([scheduler] { throw CommandExit{runScheduler(*scheduler)}; });
}

}  // namespace troupe::cmd
