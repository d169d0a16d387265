#include "bench/api/real_cluster_benchmark.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <chrono>
#include <thread>

#include "bench/api/apiserver_request_counts.h"
#include "bench/api/parallel_requests.h"
#include "bench/api/pod_bind_tracker.h"
#include "bench/support/generated_cluster.h"
#include "bench/support/memory_probe.h"
#include "bench/support/process_cpu.h"
#include "bench/support/scheduler_workload.h"
#include "kube/kubeconfig.h"
#include "kube/rest_kube_client.h"

namespace troupe::bench {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr const char* kBenchNamespace = "bench";
constexpr const char* kQueue = "bench";
constexpr const char* kTroupe = "troupe";
// The pods' group in the bind tracker: pods are "p-<i>", the first pod "w-0".
constexpr const char* kPodGroup = "p";
constexpr const char* kWarmupGroup = "w";

// A 1-GPU pod for the scheduler under test; for Troupe, a gang of one in the bench queue.
json benchPod(const std::string& name, const std::string& scheduler_name) {
  json labels = {{"bench.troupe.dev/job", name}};
  if (scheduler_name == kTroupe) labels["troupe.dev/queue"] = kQueue;
  return {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", {{"name", name}, {"labels", labels}}},
      {"spec",
       {{"schedulerName", scheduler_name},
        {"restartPolicy", "Never"},
        {"terminationGracePeriodSeconds", 0},
        {"containers", json::array({{{"name", "main"},
                                     {"image", "registry.example.com/train:1"},
                                     {"resources", {{"limits", {{"nvidia.com/gpu", 1}}}}}}})}}}};
}

// A scheduler run as a child process; stopped with SIGTERM, then SIGKILL, when destroyed.
class SchedulerChild {
 public:
  static Result<std::unique_ptr<SchedulerChild>> start(const std::string& command,
                                                       const std::string& log_path) {
    const std::string shell_command = "exec " + command;
    const pid_t pid = ::fork();
    if (pid < 0) return makeError(ErrorCode::Internal, "scheduler", "fork failed");
    if (pid == 0) {
      // Goes with the benchmark, however it ends.
      ::prctl(PR_SET_PDEATHSIG, SIGTERM);
      const int fd = ::open(log_path.empty() ? "/dev/null" : log_path.c_str(),
                            O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd >= 0) {
        ::dup2(fd, 1);
        ::dup2(fd, 2);
      }
      ::execl("/bin/sh", "sh", "-c", shell_command.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    return std::unique_ptr<SchedulerChild>(new SchedulerChild(pid));
  }
  ~SchedulerChild() { stop(); }
  SchedulerChild(const SchedulerChild&) = delete;
  SchedulerChild& operator=(const SchedulerChild&) = delete;

  pid_t pid() const { return pid_; }
  bool running() {
    if (pid_ <= 0) return false;
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) != pid_) return true;
    pid_ = -1;
    return false;
  }
  void stop() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGTERM);
    for (int i = 0; i < 200; ++i) {
      if (::waitpid(pid_, nullptr, WNOHANG) == pid_) {
        pid_ = -1;
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

 private:
  explicit SchedulerChild(pid_t pid) : pid_(pid) {}
  pid_t pid_;
};

// The CPU a process has used so far (0 when not measured).
double cpuOf(int pid) { return pid > 0 ? processCpuSeconds(pid).value_or(0) : 0; }

// What the control plane stood at when the clock started.
struct Reading {
  Clock::time_point at;
  double scheduler_cpu = 0;
  double apiserver_cpu = 0;
  double etcd_cpu = 0;
  std::map<std::string, int64_t> requests;
};

Result<Reading> read(kube::RestKubeClient& client, const RealClusterBenchOptions& options,
                     pid_t scheduler_pid) {
  auto metrics = client.getText("/metrics");
  if (!metrics)
    return makeError(ErrorCode::Unavailable, "/metrics",
                     "the API server's metrics could not be read: " + metrics.error().describe());
  return Reading{Clock::now(), cpuOf(scheduler_pid), cpuOf(options.apiserver_pid),
                 cpuOf(options.etcd_pid), apiserverRequestCounts(*metrics)};
}

Result<std::unique_ptr<kube::RestKubeClient>> clientOf(const kube::ClientConfig& config) {
  auto client = kube::RestKubeClient::create(config);
  if (!client) return client.error();
  return std::move(client.value());
}

// Writes of the pods' own, the Leases the API server and a scheduler renew left out.
int64_t podWrites(const std::map<std::string, int64_t>& writes) {
  int64_t total = 0;
  for (const auto& [key, count] : writes)
    if (key.find(" leases") == std::string::npos) total += count;
  return total;
}

Status createIgnoringExisting(kube::KubeClient& client, const kube::ResourceType& type,
                              const std::string& ns, const json& object) {
  auto made = client.create(type, ns, object, {});
  if (!made && made.error().reason != "AlreadyExists") return Status(made.error());
  return Status();
}

Status createPods(const kube::ClientConfig& config, const RealClusterBenchOptions& options,
                  RealClusterBenchResult& result) {
  auto run = runParallel(
      config, options.threads, options.pods, [&](kube::KubeClient& client, int i) -> Result<void> {
        auto made =
            client.create(kube::resources::kPods, kBenchNamespace,
                          benchPod(fmt::format("{}-{}", kPodGroup, i), options.scheduler_name), {});
        if (!made) return made.error();
        return {};
      });
  if (!run) return Status(run.error());
  result.create_seconds = run->seconds;
  return Status();
}

}  // namespace

Result<RealClusterBenchResult> runRealClusterBench(
    const RealClusterBenchOptions& options,
    const std::function<void(const std::string&)>& on_progress) {
  kube::KubeconfigOptions source;
  source.explicit_path = options.kubeconfig;
  auto config = kube::loadKubeconfig(source);
  if (!config) return config.error();
  config->qps = 1e6;
  config->burst = 1'000'000;
  config->max_idle_connections = 64;
  config->request_timeout = std::chrono::milliseconds(120'000);
  auto client = clientOf(*config);
  if (!client) return client.error();
  kube::RestKubeClient& api = **client;
  if (auto listed = api.list(kube::resources::kPods, "", kube::ListOptions{.limit = 1}); !listed)
    return listed.error();
  else if (!listed->value("items", json::array()).empty())
    return makeError(ErrorCode::Invalid, "--kubeconfig",
                     "the cluster already holds pods: the benchmark needs a fresh one");

  if (static_cast<int64_t>(options.nodes) * options.gpus_per_node < options.pods)
    return makeError(ErrorCode::Invalid, "--pods",
                     fmt::format("{} pods of 1 GPU do not fit on {} nodes of {} GPUs", options.pods,
                                 options.nodes, options.gpus_per_node));
  RealClusterBenchResult result;
  result.nodes = options.nodes;
  result.pods = options.pods;
  const json ns = {
      {"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", kBenchNamespace}}}};
  if (auto made = createIgnoringExisting(api, kube::resources::kNamespaces, "", ns); !made)
    return made.error();
  // Without a controller-manager nothing makes the namespace's ServiceAccount, which the
  // API server's admission wants for every pod; the pods mount no token.
  const json account = {{"apiVersion", "v1"},
                        {"kind", "ServiceAccount"},
                        {"metadata", {{"name", "default"}}},
                        {"automountServiceAccountToken", false}};
  if (auto made = createIgnoringExisting(
          api, kube::ResourceType{"", "v1", "serviceaccounts", "ServiceAccount", true},
          kBenchNamespace, account);
      !made)
    return made.error();
  if (options.scheduler_name == kTroupe) {
    if (auto made =
            createIgnoringExisting(api, kube::resources::kQueues, "", queueObject(kQueue, 0));
        !made)
      return made.error();
  }
  on_progress(fmt::format("creating {} nodes of {} GPUs", options.nodes, options.gpus_per_node));
  const auto nodes = generatedNodes(GeneratedClusterShape{
      .nodes = options.nodes, .gpus_per_node = options.gpus_per_node, .nodes_per_rack = 16});
  auto made_nodes = runParallel(
      *config, options.threads, options.nodes, [&](kube::KubeClient& c, int i) -> Result<void> {
        const json& node = nodes[static_cast<std::size_t>(i)];
        auto made = c.create(kube::resources::kNodes, "", node, {});
        if (!made) return made.error();
        // The API server taints a new node not-ready; with no
        // controller-manager to see it Ready, the taint goes here.
        auto ready =
            c.patch({kube::resources::kNodes, "", node["metadata"]["name"].get<std::string>(), ""},
                    json{{"spec", {{"taints", nullptr}}}}, {});
        if (!ready) return ready.error();
        return {};
      });
  if (!made_nodes) return made_nodes.error();

  auto tracker = PodBindTracker::start(api, kBenchNamespace);
  if (!tracker) return tracker.error();
  std::unique_ptr<SchedulerChild> scheduler;
  auto startScheduler = [&]() -> Status {
    on_progress(fmt::format("starting the scheduler: {}", options.scheduler_command));
    auto started = SchedulerChild::start(options.scheduler_command, options.scheduler_log);
    if (!started) return Status(started.error());
    scheduler = std::move(started.value());
    return Status();
  };
  const auto timeout = std::chrono::seconds(options.timeout_seconds);

  Reading start;
  int64_t start_rss = 0;
  if (options.scenario == RealClusterScenario::BacklogDrain) {
    on_progress(fmt::format("creating the backlog: {} pods", options.pods));
    if (auto made = createPods(*config, options, result); !made) return made.error();
    auto before = read(api, options, 0);
    if (!before) return before.error();
    if (auto started = startScheduler(); !started) return started.error();
    start = std::move(*before);
    start.at = Clock::now();
  } else {
    if (auto started = startScheduler(); !started) return started.error();
    // The scheduler is ready when it has bound a first pod.
    auto made = api.create(kube::resources::kPods, kBenchNamespace,
                           benchPod(fmt::format("{}-0", kWarmupGroup), options.scheduler_name), {});
    if (!made) return made.error();
    if ((*tracker)->waitForBound(kWarmupGroup, 1, Clock::now() + timeout) < 1)
      return makeError(ErrorCode::Timeout, "scheduler",
                       fmt::format("did not bind a first pod within {} s (its log: {})",
                                   options.timeout_seconds, options.scheduler_log));
    // Gone before the clock starts, so that the pods have every GPU.
    kube::DeleteOptions now;
    now.grace_period_seconds = 0;
    if (auto gone = api.remove(
            {kube::resources::kPods, kBenchNamespace, fmt::format("{}-0", kWarmupGroup), ""}, now);
        !gone)
      return gone.error();
    std::this_thread::sleep_for(std::chrono::seconds(1));
    auto before = read(api, options, scheduler->pid());
    if (!before) return before.error();
    start = std::move(*before);
    start_rss = rssBytesOf(scheduler->pid());
    on_progress(fmt::format("creating {} pods while the scheduler runs", options.pods));
    start.at = Clock::now();
    if (auto created = createPods(*config, options, result); !created) return created.error();
  }

  result.bound = (*tracker)->waitForBound(kPodGroup, options.pods, start.at + timeout);
  const auto binds = (*tracker)->binds(kPodGroup);
  Clock::time_point last = start.at;
  for (const auto& bind : binds)
    last = std::max(last, Clock::time_point(Clock::duration(bind.at_ns)));
  // Events are written behind the binds, by kube-scheduler and Troupe alike: the writes and
  // the CPU are read once the writes have stopped growing (a second without one, or 15 s).
  auto end = read(api, options, scheduler->pid());
  if (!end) return end.error();
  for (int i = 0; i < 15; ++i) {
    std::this_thread::sleep_for(std::chrono::seconds(1));
    auto later = read(api, options, scheduler->pid());
    if (!later) return later.error();
    const bool settled = podWrites(writesBetween(start.requests, later->requests)) ==
                         podWrites(writesBetween(start.requests, end->requests));
    end = std::move(later);
    if (settled) break;
  }
  result.seconds = std::chrono::duration<double>(last - start.at).count();
  result.pods_per_second = result.seconds > 0 ? result.bound / result.seconds : 0;
  result.scheduler = {end->scheduler_cpu - start.scheduler_cpu, peakRssBytesOf(scheduler->pid())};
  if (options.scenario == RealClusterScenario::CreateWhileScheduling && result.bound > 0)
    result.scheduler_bytes_per_pod =
        static_cast<double>(rssBytesOf(scheduler->pid()) - start_rss) / result.bound;
  result.apiserver = {end->apiserver_cpu - start.apiserver_cpu,
                      options.apiserver_pid > 0 ? peakRssBytesOf(options.apiserver_pid) : 0};
  result.etcd = {end->etcd_cpu - start.etcd_cpu,
                 options.etcd_pid > 0 ? peakRssBytesOf(options.etcd_pid) : 0};
  result.writes = writesBetween(start.requests, end->requests);
  if (options.scenario == RealClusterScenario::CreateWhileScheduling)
    result.benchmark_writes = options.pods;
  if (!scheduler->running())
    return makeError(ErrorCode::Internal, "scheduler",
                     fmt::format("exited during the run (its log: {})", options.scheduler_log));
  scheduler->stop();
  if (result.bound < options.pods)
    on_progress(fmt::format("only {} of {} pods bound within {} s", result.bound, options.pods,
                            options.timeout_seconds));
  return result;
}

double schedulerWritesPerPod(const RealClusterBenchResult& result) {
  int64_t total = -result.benchmark_writes;
  for (const auto& [key, count] : result.writes) total += count;
  return result.bound > 0 ? static_cast<double>(total) / result.bound : 0;
}

std::string realClusterMarkdownHeader() {
  return "| scenario | pods | bound/s | writes/pod | scheduler CPU ms/pod | scheduler peak "
         "RSS MiB | apiserver CPU ms/pod | etcd CPU ms/pod |\n"
         "|---|--:|--:|--:|--:|--:|--:|--:|\n";
}

std::string realClusterMarkdownRow(const std::string& name, const RealClusterBenchResult& result) {
  const double pods = std::max(1, result.bound);
  return fmt::format("| {} | {} | {:.0f} | {:.2f} | {:.3f} | {:.0f} | {:.2f} | {:.2f} |\n", name,
                     result.bound, result.pods_per_second, schedulerWritesPerPod(result),
                     result.scheduler.cpu_seconds * 1e3 / pods,
                     static_cast<double>(result.scheduler.peak_rss_bytes) / (1024.0 * 1024.0),
                     result.apiserver.cpu_seconds * 1e3 / pods,
                     result.etcd.cpu_seconds * 1e3 / pods);
}

std::string realClusterWritesLine(const RealClusterBenchResult& result) {
  const double pods = std::max(1, result.bound);
  std::string line;
  for (const auto& [key, count] : result.writes) {
    if (!line.empty()) line += ", ";
    line += fmt::format("{} {:.3f}", key, static_cast<double>(count) / pods);
  }
  return line;
}

}  // namespace troupe::bench
