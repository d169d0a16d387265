#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>

#include "bench/api/real_cluster_benchmark.h"
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

int runRealCluster(const RealClusterBenchOptions& options) {
  if (options.nodes < 1 || options.pods < 1 || options.gpus_per_node < 1 || options.threads < 1 ||
      options.timeout_seconds < 1) {
    fmt::print(stderr,
               "troupe bench scheduler: --nodes, --pods, --gpus-per-node, --threads and "
               "--timeout must be >= 1\n");
    return 2;
  }
  if (options.scheduler_command.empty()) {
    fmt::print(stderr,
               "troupe bench scheduler: --kubeconfig needs --scheduler-command, the scheduler "
               "the benchmark starts and measures\n");
    return 2;
  }
  const bool backlog = options.scenario == RealClusterScenario::BacklogDrain;
  fmt::print("# troupe bench scheduler --kubeconfig {}\n\n", options.kubeconfig);
  fmt::print("- machine: {}\n", describeMachine());
  fmt::print("- scheduler: {} (pods' schedulerName {})\n", options.scheduler_command,
             options.scheduler_name);
  fmt::print(
      "- {} nodes x {} GPUs (API objects, no kubelets); {} pods of 1 GPU from {} client "
      "connections, {}\n\n",
      options.nodes, options.gpus_per_node, options.pods, options.threads,
      backlog ? "all created before the scheduler starts; timed from its start"
              : "created while the scheduler runs; timed from the first create");
  std::fflush(stdout);
  auto result = runRealClusterBench(options, [](const std::string& line) {
    fmt::print(stderr, "troupe bench scheduler: {}\n", line);
  });
  if (!result) {
    fmt::print(stderr, "troupe bench scheduler: {}\n", result.error().describe());
    return 1;
  }
  const double pods = std::max(1, result->bound);
  fmt::print("{}", realClusterMarkdownHeader());
  fmt::print("{}", realClusterMarkdownRow(backlog ? "backlog drain" : "created while scheduling",
                                          *result));
  fmt::print("\n- pods created in {:.1f} s\n", result->create_seconds);
  fmt::print(
      "- writes a bound pod, from the API server's apiserver_request_total{}: {}\n",
      result->benchmark_writes > 0 ? " (the benchmark's pod creates left out of writes/pod)" : "",
      realClusterWritesLine(*result));
  fmt::print("- scheduler CPU {:.3f} ms a bound pod (target <= 0.1 in a backlog drain)\n",
             result->scheduler.cpu_seconds * 1e3 / pods);
  if (!backlog)
    fmt::print("- scheduler memory grown a pod: {:.0f} bytes (target <= 1024)\n",
               result->scheduler_bytes_per_pod);
  fmt::print(
      "- apiserver + etcd CPU {:.2f} ms a bound pod; peak RSS apiserver {:.0f} MiB, etcd "
      "{:.0f} MiB\n",
      (result->apiserver.cpu_seconds + result->etcd.cpu_seconds) * 1e3 / pods,
      static_cast<double>(result->apiserver.peak_rss_bytes) / (1024.0 * 1024.0),
      static_cast<double>(result->etcd.peak_rss_bytes) / (1024.0 * 1024.0));
  if (result->bound != result->pods) {
    fmt::print(stderr, "troupe bench scheduler: {} of {} pods bound before the timeout\n",
               result->bound, result->pods);
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
  auto real = std::make_shared<RealClusterBenchOptions>();
  scheduler_cmd->add_option("--kubeconfig", real->kubeconfig,
                            "Measure a scheduler beside the API server of this kubeconfig (a "
                            "fresh cluster) instead of troupe serve");
  scheduler_cmd
      ->add_option("--scenario", real->scenario,
                   "With --kubeconfig: backlog (every pod created, then the scheduler started) "
                   "or streaming (pods created while it runs)")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, RealClusterScenario>{
              {"backlog", RealClusterScenario::BacklogDrain},
              {"streaming", RealClusterScenario::CreateWhileScheduling}},
          CLI::ignore_case));
  scheduler_cmd->add_option(
      "--scheduler-command", real->scheduler_command,
      "With --kubeconfig: the scheduler to start and measure (a shell command)");
  scheduler_cmd
      ->add_option("--scheduler-name", real->scheduler_name,
                   "With --kubeconfig: the pods' schedulerName (troupe: with the queue label)")
      ->capture_default_str();
  scheduler_cmd->add_option("--scheduler-log", real->scheduler_log,
                            "With --kubeconfig: the scheduler's output goes to this file");
  scheduler_cmd->add_option("--apiserver-pid", real->apiserver_pid,
                            "With --kubeconfig: the API server's process, to measure its CPU");
  scheduler_cmd->add_option("--etcd-pid", real->etcd_pid,
                            "With --kubeconfig: etcd's process, to measure its CPU");
  scheduler_cmd->add_option("--pods", real->pods, "With --kubeconfig: 1-GPU pods created")
      ->capture_default_str();
  scheduler_cmd
      ->add_option("--gpus-per-node", real->gpus_per_node, "With --kubeconfig: GPUs of each node")
      ->capture_default_str();
  scheduler_cmd->callback([scheduler, real, scheduler_cmd] {
    if (real->kubeconfig.empty()) throw CommandExit{runScheduler(*scheduler)};
    if (scheduler_cmd->count("--nodes") > 0) real->nodes = scheduler->nodes;
    if (scheduler_cmd->count("--threads") > 0) real->threads = scheduler->threads;
    if (scheduler_cmd->count("--timeout") > 0) real->timeout_seconds = scheduler->timeout_seconds;
    throw CommandExit{runRealCluster(*real)};
  });
}

}  // namespace troupe::cmd
