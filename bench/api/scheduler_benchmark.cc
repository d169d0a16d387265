#include "bench/api/scheduler_benchmark.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <thread>

#include "bench/api/latency.h"
#include "bench/api/parallel_requests.h"
#include "bench/api/pod_bind_tracker.h"
#include "bench/api/request_log.h"
#include "bench/api/serve_child.h"
#include "bench/support/generated_cluster.h"
#include "bench/support/process_cpu.h"
#include "bench/support/scheduler_workload.h"

namespace troupe::bench {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr const char* kNamespace = "bench";
constexpr int kGpusPerNode = 8;

// The pod template of trainingJobObject(), for a pod of the benchmark's own PodGroup.
json plainPod(const std::string& group, int index, int gpus) {
  json resources = gpus > 0 ? json{{"limits", {{"nvidia.com/gpu", gpus}}}}
                            : json{{"requests", {{"cpu", "1"}, {"memory", "1Gi"}}}};
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata",
           {{"name", fmt::format("{}-{}", group, index)},
            {"labels", {{"troupe.dev/pod-group", group}}}}},
          {"spec",
           {{"schedulerName", "troupe"},
            {"restartPolicy", "Never"},
            {"terminationGracePeriodSeconds", 0},
            {"containers", json::array({{{"name", "main"},
                                         {"image", "registry.example.com/train:1"},
                                         {"resources", resources}}})}}}};
}

// A lone pod: a gang of one in `queue`, labelled with its job's name for the bind tracker.
json lonePod(const std::string& job, const std::string& queue, int gpus) {
  json pod = plainPod(job, 0, gpus);
  pod["metadata"]["labels"] = {{"troupe.dev/queue", queue}, {"bench.troupe.dev/job", job}};
  return pod;
}

// One job of the chosen workload: a TrainingJob, a lone pod, or a PodGroup then its pods.
Status createJob(kube::KubeClient& client, BenchWorkload workload, const std::string& name,
                 const std::string& queue_name, int replicas, int gpus) {
  if (workload == BenchWorkload::TrainingJobs) {
    auto made = client.create(kube::resources::kTrainingJobs, kNamespace,
                              trainingJobObject(name, queue_name, replicas, gpus), {});
    if (!made) return Status(made.error());
    return Status();
  }
  if (workload == BenchWorkload::LonePods && replicas == 1) {
    auto made =
        client.create(kube::resources::kPods, kNamespace, lonePod(name, queue_name, gpus), {});
    if (!made) return Status(made.error());
    return Status();
  }
  json group = {{"apiVersion", "troupe.dev/v1alpha1"},
                {"kind", "PodGroup"},
                {"metadata", {{"name", name}}},
                {"spec", {{"minMember", replicas}, {"queue", queue_name}}}};
  if (auto made = client.create(kube::resources::kPodGroups, kNamespace, group, {}); !made)
    return Status(made.error());
  for (int i = 0; i < replicas; ++i) {
    auto made = client.create(kube::resources::kPods, kNamespace, plainPod(name, i, gpus), {});
    if (!made) return Status(made.error());
  }
  return Status();
}

int jobIndex(const std::string& job) { return std::stoi(job.substr(job.find('-') + 1)); }

// The CPU `troupe serve` and this process have used so far.
struct CpuReading {
  double server = 0;
  double client = 0;
};

CpuReading readCpu(const ServeChild& server) {
  return {processCpuSeconds(server.pid()).value_or(0), processCpuSeconds(::getpid()).value_or(0)};
}

// The store's last committed revision: a list's resourceVersion, as in the real API server
// (one revision per write). A list of one namespace keeps the read cheap.
Result<int64_t> readRevision(ServeChild& server) {
  kube::ListOptions options;
  options.limit = 1;
  auto listed = server.client().list(kube::resources::kNamespaces, "", options);
  if (!listed) return listed.error();
  const std::string rv =
      listed->value(json::json_pointer("/metadata/resourceVersion"), std::string());
  char* end = nullptr;
  const long long revision = std::strtoll(rv.c_str(), &end, 10);
  if (rv.empty() || *end != '\0' || revision <= 0)
    return Error{ErrorCode::Internal, "",
                 fmt::format("a list answered resourceVersion \"{}\", not a revision", rv)};
  return int64_t{revision};
}

// The server's request log, in its work directory.
std::string requestLogOf(const ServeChild& server) { return server.workDir() + "/requests.log"; }

// What the server stood at when a phase's clock started.
struct PhaseStart {
  int64_t ns = 0;
  CpuReading cpu;
  int64_t revision = 0;
  int64_t request_log_size = 0;
};

Result<PhaseStart> startPhase(ServeChild& server) {
  auto revision = readRevision(server);
  if (!revision) return revision.error();
  return PhaseStart{nowNs(), readCpu(server), *revision, requestLogSize(requestLogOf(server))};
}

// Waits until every pod of `phase` is bound (or the timeout) and times each from its
// job's moment in `from_ns` (indexed by the job's number) to its bind; `start` is the
// phase's clock, CPU and revision when it began.
Status measureBinds(ServeChild& server, PodBindTracker& tracker,
                    const SchedulerBenchOptions& options, const std::string& group,
                    const std::vector<int64_t>& from_ns, const PhaseStart& start,
                    SchedulingPhase& phase,
                    const std::function<void(const std::string&)>& on_progress) {
  const int64_t first_ns = start.ns;
  const auto deadline = Clock::now() + std::chrono::seconds(options.timeout_seconds);
  for (;;) {
    phase.bound = tracker.waitForBound(group, phase.pods,
                                       std::min(deadline, Clock::now() + std::chrono::seconds(10)));
    if (phase.bound >= phase.pods || Clock::now() >= deadline) break;
    on_progress(fmt::format("{} of {} pods bound", phase.bound, phase.pods));
  }
  const CpuReading cpu_at_end = readCpu(server);
  auto revision_at_end = readRevision(server);
  if (!revision_at_end) return Status(revision_at_end.error());
  phase.server_cpu_seconds = cpu_at_end.server - start.cpu.server;
  phase.client_cpu_seconds = cpu_at_end.client - start.cpu.client;
  phase.writes = *revision_at_end - start.revision;
  // The operator records Events without waiting for them, so some of a phase's are written
  // after its last bind: its writes are counted once they stop coming (off the clock), so
  // that none is counted in the next phase.
  std::map<std::string, int64_t> counted;
  const auto settle_deadline = Clock::now() + std::chrono::seconds(10);
  for (int unchanged = 0; unchanged < 4 && Clock::now() < settle_deadline;) {
    auto now = writesBy(requestLogOf(server), options.operator_user, start.request_log_size);
    unchanged = now == counted ? unchanged + 1 : 0;
    counted = std::move(now);
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  phase.operator_writes = std::move(counted);
  std::vector<double> latency_ms;
  int64_t last_ns = first_ns;
  for (const auto& bind : tracker.binds(group)) {
    int index = jobIndex(bind.job);
    if (index < 0 || index >= phase.jobs) continue;
    latency_ms.push_back(
        static_cast<double>(bind.at_ns - from_ns[static_cast<std::size_t>(index)]) / 1e6);
    last_ns = std::max(last_ns, bind.at_ns);
  }
  phase.seconds = static_cast<double>(last_ns - first_ns) / 1e9;
  phase.pods_bound_per_second = phase.seconds > 0 ? phase.bound / phase.seconds : 0;
  phase.create_to_bound = summarize(std::move(latency_ms));
  return Status();
}

// Creates `jobs` jobs named <group>-<i> from `threads` connections and waits until all
// their pods are bound; times each pod from its job's create to its bind.
Result<SchedulingPhase> runPhase(ServeChild& server, PodBindTracker& tracker,
                                 const SchedulerBenchOptions& options, const std::string& name,
                                 const std::string& group, int jobs, int replicas,
                                 const std::function<void(const std::string&)>& on_progress) {
  SchedulingPhase phase;
  phase.name = name;
  phase.jobs = jobs;
  phase.pods = jobs * replicas;
  std::vector<int64_t> created_ns(static_cast<std::size_t>(jobs), 0);
  auto start = startPhase(server);
  if (!start) return start.error();
  auto run = runParallel(server, options.threads, jobs, [&](kube::KubeClient& client, int i) {
    created_ns[static_cast<std::size_t>(i)] = nowNs();
    return createJob(client, options.workload, fmt::format("{}-{}", group, i), "bench", replicas,
                     0);
  });
  if (!run) return run.error();
  phase.jobs_created_per_second = jobs / run->seconds;
  on_progress(fmt::format("{} jobs created in {:.1f} s", jobs, run->seconds));
  if (auto measured =
          measureBinds(server, tracker, options, group, created_ns, *start, phase, on_progress);
      !measured)
    return measured.error();
  return phase;
}

// The backlog: `options.backlog` single-pod jobs named h-<i> wait in queue `held`, whose
// limit of 0 CPUs admits none of them (they are Inadmissible: the queue's status counts
// them apart from its pending ones), until the operator counts them all; then
// one patch lifts the limit, as an administrator raising a team's quota would, and every
// pod is timed from that patch to its bind. The creates are off the clock: this is the
// scheduler draining a queue, as kube-scheduler's benchmark binds pods that an idle
// client already created.
Result<SchedulingPhase> runBacklogPhase(
    ServeChild& server, PodBindTracker& tracker, const SchedulerBenchOptions& options,
    const std::function<void(const std::string&)>& on_progress) {
  SchedulingPhase phase;
  phase.name = kBacklogPhaseName;
  phase.jobs = options.backlog;
  phase.pods = options.backlog;
  const int64_t create_start_ns = nowNs();
  auto run = runParallel(server, options.threads, phase.jobs, [&](kube::KubeClient& client, int i) {
    return createJob(client, options.workload, fmt::format("h-{}", i), "held", 1, 0);
  });
  if (!run) return run.error();
  phase.jobs_created_per_second = phase.jobs / run->seconds;
  on_progress(fmt::format("{} held jobs created in {:.1f} s", phase.jobs, run->seconds));
  const kube::ObjectRef held{kube::resources::kQueues, "", "held", ""};
  const auto deadline = Clock::now() + std::chrono::seconds(options.timeout_seconds);
  for (int64_t pending = -1, last_said = -1;;) {
    auto queue = server.client().get(held);
    if (!queue) return queue.error();
    pending = queue->value(json::json_pointer("/status/pending"), int64_t{0}) +
              queue->value(json::json_pointer("/status/inadmissible"), int64_t{0});
    if (pending >= phase.jobs) break;
    if (Clock::now() >= deadline)
      return Error{
          ErrorCode::Timeout, "",
          fmt::format(
              "the operator counted {} of {} held jobs pending after {} s (started {:.1f} s ago)",
              pending, phase.jobs, options.timeout_seconds,
              static_cast<double>(nowNs() - create_start_ns) / 1e9)};
    if (pending / 1000 != last_said / 1000) {
      on_progress(fmt::format("{} of {} held jobs pending", pending, phase.jobs));
      last_said = pending;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  if (tracker.bound("h") != 0)
    return Error{ErrorCode::Internal, "",
                 fmt::format("{} held pods were bound before the release: the queue's limit did "
                             "not hold them",
                             tracker.bound("h"))};
  auto release = startPhase(server);
  if (!release) return release.error();
  auto lifted = server.client().patch(held, json{{"spec", {{"resources", nullptr}}}}, {});
  if (!lifted) return lifted.error();
  on_progress("limit lifted");
  if (auto measured =
          measureBinds(server, tracker, options, "h",
                       std::vector<int64_t>(static_cast<std::size_t>(phase.jobs), release->ns),
                       *release, phase, on_progress);
      !measured)
    return measured.error();
  return phase;
}

// Creates job `name` of `gpus` GPUs in the guaranteed queue; waits for its pod.
Result<ReclaimAttempt> reclaim(ServeChild& server, PodBindTracker& tracker,
                               const SchedulerBenchOptions& options, const std::string& name,
                               int gpus) {
  ReclaimAttempt attempt;
  attempt.gpus = gpus;
  const std::string group = name.substr(0, name.find('-'));
  const int preempted_before = tracker.deleted("b");
  const int64_t start_ns = nowNs();
  if (auto made = createJob(server.client(), options.workload, name, "owner", 1, gpus); !made)
    return made.error();
  attempt.bound =
      tracker.waitForBound(group, 1,
                           Clock::now() + std::chrono::seconds(options.reclaim_wait_seconds)) >= 1;
  if (attempt.bound)
    attempt.ms = static_cast<double>(tracker.binds(group).front().at_ns - start_ns) / 1e6;
  attempt.preempted = tracker.deleted("b") - preempted_before;
  if (!attempt.bound) {
    const auto& type = options.workload == BenchWorkload::TrainingJobs
                           ? kube::resources::kTrainingJobs
                           : kube::resources::kPodGroups;
    auto job = server.client().get(kube::ObjectRef{type, kNamespace, name, ""});
    if (job)
      attempt.pending = job->value("status", json::object())
                            .value("pending", json::object())
                            .value("message", "");
    if (attempt.pending.empty()) attempt.pending = "the operator has not written its status yet";
  }
  return attempt;
}

Status measureReclaim(ServeChild& server, PodBindTracker& tracker,
                      const SchedulerBenchOptions& options, SchedulerBenchResult& result,
                      const std::function<void(const std::string&)>& on_progress) {
  // The borrowing queue asks for every GPU: one 8-GPU single-pod job per node.
  auto run =
      runParallel(server, options.threads, options.nodes, [&](kube::KubeClient& client, int i) {
        return createJob(client, options.workload, fmt::format("b-{}", i), "borrower", 1,
                         kGpusPerNode);
      });
  if (!run) return run.error();
  // Every borrowing pod fits (the owner's guarantee is lent while it is unused).
  const auto deadline = Clock::now() + std::chrono::seconds(options.timeout_seconds);
  for (;;) {
    int bound = tracker.waitForBound("b", options.nodes,
                                     std::min(deadline, Clock::now() + std::chrono::seconds(10)));
    if (bound >= options.nodes || Clock::now() >= deadline) break;
    on_progress(fmt::format("{} of {} borrowing pods bound", bound, options.nodes));
  }
  result.borrower_pods_bound = tracker.bound("b");
  on_progress(fmt::format("borrowing queue holds {} of {} GPUs",
                          result.borrower_pods_bound * kGpusPerNode, result.gpus));
  auto one_gpu = reclaim(server, tracker, options, "r-1", 1);
  if (!one_gpu) return one_gpu.error();
  result.one_gpu = *one_gpu;
  // The 1-GPU job is deleted (of plain pods, its pod: the PodGroup is left empty) before
  // the 8-GPU one is timed.
  const auto& first_type = options.workload == BenchWorkload::TrainingJobs
                               ? kube::resources::kTrainingJobs
                               : kube::resources::kPods;
  const std::string first_name = options.workload == BenchWorkload::TrainingJobs ? "r-1" : "r-1-0";
  if (auto gone =
          server.client().remove(kube::ObjectRef{first_type, kNamespace, first_name, ""}, {});
      !gone)
    return gone.error();
  auto one_node = reclaim(server, tracker, options, "s-8", kGpusPerNode);
  if (!one_node) return one_node.error();
  result.one_node = *one_node;
  return {};
}

}  // namespace

Result<SchedulerBenchResult> runSchedulerBench(
    const SchedulerBenchOptions& options,
    const std::function<void(const std::string&)>& on_progress) {
  SchedulerBenchResult result;
  result.nodes = options.nodes;
  result.gpus = options.nodes * kGpusPerNode;
  const std::string cluster_file =
      (std::filesystem::temp_directory_path() / fmt::format("troupe-bench-nodes-{}.yaml", getpid()))
          .string();
  GeneratedClusterShape shape;
  shape.nodes = options.nodes;
  shape.gpus_per_node = kGpusPerNode;
  if (auto written = writeClusterFile(cluster_file, shape); !written) return written.error();
  ServeChildOptions serve;
  serve.cluster_file = cluster_file;
  serve.crd_dir = options.crd_dir;
  serve.operator_in_process = true;
  serve.kubelets = options.kubelets;
  serve.sim_speed = options.sim_speed;
  serve.log_file = options.serve_log;
  serve.log_level = options.serve_log_level;
  serve.authorization_log = "requests.log";  // in its work directory: requestLogOf()
  on_progress(fmt::format("starting troupe serve on {} nodes", options.nodes));
  auto server = ServeChild::start(serve);
  std::filesystem::remove(cluster_file);
  if (!server) return server.error();
  auto& client = (*server)->client();
  json ns = {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", kNamespace}}}};
  if (auto made = client.create(kube::resources::kNamespaces, "", ns, {}); !made)
    return made.error();
  // One big queue for the throughput phases; a borrower and an owner for the reclaim; one
  // that admits nothing until its limit is lifted, for the backlog.
  for (const auto& [name, gpus] : std::vector<std::pair<std::string, int>>{
           {"bench", 0}, {"borrower", 0}, {"owner", kGpusPerNode}}) {
    if (auto made = client.create(kube::resources::kQueues, "", queueObject(name, gpus), {}); !made)
      return made.error();
  }
  json held = queueObject("held", 0);
  held["spec"]["resources"] = {{"cpu", {{"limit", 0}}}};
  if (auto made = client.create(kube::resources::kQueues, "", held, {}); !made) return made.error();
  auto tracker = PodBindTracker::start(client, kNamespace);
  if (!tracker) return tracker.error();

  on_progress(fmt::format("{} single-pod jobs", options.jobs));
  auto single =
      runPhase(**server, **tracker, options, "single-pod jobs", "j", options.jobs, 1, on_progress);
  if (!single) return single.error();
  result.single = *single;
  on_progress(fmt::format("{} gangs of {} pods", options.gangs, options.gang_size));
  auto gangs = runPhase(**server, **tracker, options, fmt::format("gangs of {}", options.gang_size),
                        "g", options.gangs, options.gang_size, on_progress);
  if (!gangs) return gangs.error();
  result.gangs = *gangs;
  on_progress("reclaim of one GPU");
  if (auto done = measureReclaim(**server, **tracker, options, result, on_progress); !done)
    return done.error();
  auto memory = (*server)->memory();
  result.rss_bytes = memory.rss_bytes;
  result.hwm_bytes = memory.hwm_bytes;
  // Last, so that the reclaim and the memory are measured on the cluster the first two
  // phases leave (the backlog's CPU pods fit beside the borrowing queue's GPU pods).
  if (options.backlog > 0) {
    on_progress(fmt::format("a backlog of {} single-pod jobs", options.backlog));
    auto backlog = runBacklogPhase(**server, **tracker, options, on_progress);
    if (!backlog) return backlog.error();
    result.backlog = *backlog;
  }
  tracker->reset();
  (*server)->stop();
  return result;
}

std::string schedulerMarkdownHeader() {
  return "| phase | jobs | pods | bound | jobs created/s | pods bound/s | create to bound p50 / "
         "p99 ms | seconds | CPU ms a pod, server / benchmark | writes a pod | operator writes "
         "a pod | writes/s |\n"
         "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
}

double writesPerPod(const SchedulingPhase& phase) {
  return phase.bound > 0 ? static_cast<double>(phase.writes) / phase.bound : 0;
}

double operatorWritesPerPod(const SchedulingPhase& phase) {
  int64_t n = 0;
  for (const auto& [kind, count] : phase.operator_writes) n += count;
  return phase.bound > 0 ? static_cast<double>(n) / phase.bound : 0;
}

double operatorPodWritesPerPod(const SchedulingPhase& phase) {
  int64_t n = 0;
  for (const auto& [kind, count] : phase.operator_writes)
    if (kind.find(" queues") == std::string::npos) n += count;
  return phase.bound > 0 ? static_cast<double>(n) / phase.bound : 0;
}

std::string operatorWritesLine(const SchedulingPhase& phase) {
  std::string out = fmt::format("- {}: the operator's writes a pod bound, {:.2f}:", phase.name,
                                operatorWritesPerPod(phase));
  for (const auto& [kind, count] : phase.operator_writes)
    out += fmt::format(" {} {:.2f};", kind,
                       phase.bound > 0 ? static_cast<double>(count) / phase.bound : 0.0);
  return out + "\n";
}

double writesPerSecond(const SchedulingPhase& phase) {
  return phase.seconds > 0 ? static_cast<double>(phase.writes) / phase.seconds : 0;
}

std::string schedulerMarkdownRow(const SchedulingPhase& phase) {
  const double per_pod_ms = phase.bound > 0 ? 1000.0 / phase.bound : 0;
  return fmt::format(
      "| {} | {} | {} | {} | {:.0f} | {:.0f} | {:.1f} / {:.1f} | {:.1f} | {:.2f} / {:.2f} | "
      "{:.1f} | {:.2f} | {:.0f} |\n",
      phase.name, phase.jobs, phase.pods, phase.bound, phase.jobs_created_per_second,
      phase.pods_bound_per_second, phase.create_to_bound.p50_ms, phase.create_to_bound.p99_ms,
      phase.seconds, phase.server_cpu_seconds * per_pod_ms, phase.client_cpu_seconds * per_pod_ms,
      writesPerPod(phase), operatorWritesPerPod(phase), writesPerSecond(phase));
}

}  // namespace troupe::bench
