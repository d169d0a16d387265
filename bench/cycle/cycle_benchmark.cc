#include "bench/cycle/cycle_benchmark.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "api/well_known.h"
#include "bench/support/generated_cluster.h"
#include "bench/support/machine_info.h"
#include "bench/support/memory_probe.h"
#include "bench/support/scheduler_workload.h"
#include "controllers/cycle_planner.h"
#include "controllers/cycle_timer.h"
#include "controllers/job_objects.h"
#include "controllers/object_json.h"

namespace troupe::bench {
namespace {

using nlohmann::json;
using ObjectRef = controllers::ObjectRef;

constexpr const char* kNamespace = "bench";
constexpr std::int64_t kStart = 1'800'000'000;  // the cluster's start, in seconds
constexpr int kCpusPerNode = 94;                // allocatable of a generated node

// The benchmark's TrainingJob in its namespace, with the uid the server gives it.
json trainingJob(const std::string& name, const std::string& queue_name, int replicas, int gpus) {
  json job = trainingJobObject(name, queue_name, replicas, gpus);
  job["metadata"]["namespace"] = kNamespace;
  job["metadata"]["uid"] = "uid-job-" + name;
  return job;
}

// The objects the API would hold for a job: its PodGroup and pods, as the TrainingJob
// controller renders them, with what the server adds (uid, creation time).
struct JobObjects {
  ObjectRef group;
  std::vector<json> pods;
};

JobObjects renderJob(const json& job, std::int64_t created) {
  JobObjects out;
  json group = controllers::renderPodGroup(job, created);
  group["metadata"]["uid"] = "uid-group-" + controllers::nameOf(job);
  group["metadata"]["creationTimestamp"] = controllers::formatTimestamp(created);
  out.group = std::make_shared<const json>(std::move(group));
  const auto replicas = static_cast<int>(job["spec"]["replicas"].get<std::int64_t>());
  for (int i = 0; i < replicas; ++i) {
    json pod = controllers::renderPod(job, i, 0);
    pod["metadata"]["uid"] = "uid-pod-" + pod["metadata"]["name"].get<std::string>();
    pod["metadata"]["creationTimestamp"] = controllers::formatTimestamp(created);
    pod["status"] = {{"phase", "Pending"}};
    out.pods.push_back(std::move(pod));
  }
  return out;
}

// `pod` as the kubelet reports it once bound to `node` with `gpus`.
ObjectRef running(json pod, const std::string& node, const std::string& gpus, std::int64_t at) {
  pod["spec"]["nodeName"] = node;
  if (!gpus.empty()) pod["metadata"]["annotations"][std::string(api::kGpuIndicesAnnotation)] = gpus;
  pod["status"] = {{"phase", "Running"}, {"startTime", controllers::formatTimestamp(at)}};
  return std::make_shared<const json>(std::move(pod));
}

// The informer caches of the reclaim moment, each kind in key order as a cache lists it.
struct Objects {
  std::vector<ObjectRef> nodes, pods, queues, pod_groups, priority_classes;
};

Objects settledCluster(const CycleBenchShape& shape) {
  Objects out;
  GeneratedClusterShape cluster;
  cluster.nodes = shape.nodes;
  for (auto& node : generatedNodes(cluster))
    out.nodes.push_back(std::make_shared<const json>(std::move(node)));
  for (const auto* name : {"bench", "borrower", "owner"})
    out.queues.push_back(
        std::make_shared<const json>(queueObject(name, std::string(name) == "owner" ? 8 : 0)));
  // CPU pods fill nodes in order, 94 to a node, as the engine packs them.
  int cpu_pods = 0;
  auto addCpuJob = [&](const std::string& name, int replicas) {
    auto objects = renderJob(trainingJob(name, "bench", replicas, 0), kStart);
    out.pod_groups.push_back(objects.group);
    for (auto& pod : objects.pods) {
      const int node = (cpu_pods++ / kCpusPerNode) % shape.nodes;
      out.pods.push_back(running(std::move(pod), generatedNodeName(node), "", kStart + 1));
    }
  };
  for (int i = 0; i < shape.single_jobs; ++i) addCpuJob(fmt::format("s-{}", i), 1);
  for (int i = 0; i < shape.gangs; ++i) addCpuJob(fmt::format("g-{}", i), shape.gang_size);
  // Every GPU borrowed: one 8-GPU pod a node in a queue without a guarantee.
  for (int i = 0; i < shape.nodes; ++i) {
    auto objects = renderJob(trainingJob(fmt::format("b-{}", i), "borrower", 1, 8), kStart);
    out.pod_groups.push_back(objects.group);
    out.pods.push_back(
        running(std::move(objects.pods[0]), generatedNodeName(i), "0,1,2,3,4,5,6,7", kStart + 1));
  }
  auto byKey = [](const ObjectRef& a, const ObjectRef& b) {
    return std::pair(controllers::namespaceOf(*a), controllers::nameOf(*a)) <
           std::pair(controllers::namespaceOf(*b), controllers::nameOf(*b));
  };
  for (auto* list : {&out.nodes, &out.pods, &out.queues, &out.pod_groups})
    std::sort(list->begin(), list->end(), byKey);
  return out;
}

// `list` with `extra` inserted at its place in key order.
std::vector<ObjectRef> with(const std::vector<ObjectRef>& list, const ObjectRef& extra) {
  std::vector<ObjectRef> out;
  out.reserve(list.size() + 1);
  const auto key = controllers::nameOf(*extra);
  auto at = std::lower_bound(list.begin(), list.end(), key, [](const ObjectRef& o, const auto& k) {
    return controllers::nameOf(*o) < k;
  });
  out.insert(out.end(), list.begin(), at);
  out.push_back(extra);
  out.insert(out.end(), at, list.end());
  return out;
}

double percentile(std::vector<double> samples, double p) {
  if (samples.empty()) return 0;
  std::sort(samples.begin(), samples.end());
  const auto rank = static_cast<std::size_t>(p * static_cast<double>(samples.size() - 1) + 0.5);
  return samples[std::min(rank, samples.size() - 1)];
}

// One cycle of the scheduling thread on `objects` at time t: the scheduler loop's own
// planning steps (controllers/cycle_planner.h), each timed.
struct TimedCycle {
  double snapshot_ms = 0, load_ms = 0, schedule_ms = 0, plan_ms = 0, total_ms = 0;
  std::size_t refused = 0;
  controllers::ActionPlan plan;
};

TimedCycle timedCycle(const controllers::ApiObjects& objects, std::int64_t t, std::int64_t cycle,
                      controllers::CyclePlanner& planner) {
  TimedCycle out;
  controllers::CycleTimer timer;
  auto planned = planner.plan(objects, {t, {}}, cycle, timer);
  out.refused = planned.refused.size();
  out.plan = std::move(planned.plan);
  out.snapshot_ms = timer.cpuMs("snapshot");
  out.load_ms = timer.cpuMs("sync");
  out.schedule_ms = timer.cpuMs("schedule");
  out.plan_ms = timer.cpuMs("plan");
  out.total_ms = timer.totalCpuMs();
  planner.recycle(std::move(planned.cluster));  // as the scheduler loop does
  return out;
}

}  // namespace

CycleBenchResult runCycleBench(const CycleBenchShape& shape) {
  CycleBenchResult result;
  result.shape = shape;
  const Objects settled = settledCluster(shape);
  result.pods = static_cast<int>(settled.pods.size()) + 1;
  result.gangs = static_cast<int>(settled.pod_groups.size()) + 1;
  // Kept across cycles, as the scheduler loop keeps it.
  controllers::CyclePlanner planner{queueing::Policy{}};
  for (int cycle = 0; cycle <= shape.cycles; ++cycle) {
    // A new 1-GPU job in the guaranteed queue; the previous one is gone.
    const auto t = kStart + 100 + cycle;
    auto job = renderJob(trainingJob(fmt::format("r-{}", cycle), "owner", 1, 1), t);
    controllers::ApiObjects objects;
    objects.nodes = controllers::ObjectList(settled.nodes);
    objects.queues = controllers::ObjectList(settled.queues);
    objects.priority_classes = controllers::ObjectList(settled.priority_classes);
    objects.pod_groups = controllers::ObjectList(with(settled.pod_groups, job.group));
    objects.pods = controllers::ObjectList(
        with(settled.pods, std::make_shared<const json>(std::move(job.pods[0]))));

    const TimedCycle c = timedCycle(objects, t, cycle + 1, planner);
    if (cycle == 0) continue;  // filled the facts and loaded the engine
    result.refused += c.refused;
    result.gangs_resent += planner.engine().lastSync().gangs_added;
    result.snapshot_ms.push_back(c.snapshot_ms);
    result.load_ms.push_back(c.load_ms);
    result.schedule_ms.push_back(c.schedule_ms);
    result.plan_ms.push_back(c.plan_ms);
    result.total_ms.push_back(c.total_ms);
    const auto& plan = c.plan;
    const bool reclaimed = plan.bindings.size() == 1 && plan.deletions.size() == 1 &&
                           plan.bindings[0].gang == fmt::format("{}/r-{}", kNamespace, cycle);
    if (reclaimed) ++result.cycles_that_reclaimed;
  }
  // The drain: the settled cluster plus a backlog of pending single-pod jobs.
  {
    std::vector<ObjectRef> groups = settled.pod_groups, pods = settled.pods;
    const auto t = kStart + 200 + shape.cycles;
    for (int i = 0; i < shape.backlog; ++i) {
      auto job = renderJob(trainingJob(fmt::format("h-{}", i), "bench", 1, 0), t - 1);
      groups.push_back(job.group);
      pods.push_back(std::make_shared<const json>(std::move(job.pods[0])));
    }
    auto byName = [](const ObjectRef& a, const ObjectRef& b) {
      return controllers::nameOf(*a) < controllers::nameOf(*b);
    };
    std::sort(groups.begin(), groups.end(), byName);
    std::sort(pods.begin(), pods.end(), byName);
    controllers::ApiObjects objects;
    objects.nodes = controllers::ObjectList(settled.nodes);
    objects.queues = controllers::ObjectList(settled.queues);
    objects.priority_classes = controllers::ObjectList(settled.priority_classes);
    objects.pod_groups = controllers::ObjectList(std::move(groups));
    objects.pods = controllers::ObjectList(std::move(pods));
    const TimedCycle c = timedCycle(objects, t, shape.cycles + 2, planner);
    result.drain = DrainCycle{c.snapshot_ms, c.load_ms,  c.schedule_ms,
                              c.plan_ms,     c.total_ms, c.plan.bindings.size()};
  }
  result.peak_rss_bytes = peakRssBytes();
  return result;
}

std::string describe(const CycleBenchResult& r) {
  std::string out = fmt::format(
      "# troupe_cycle_bench\n\n- machine: {}\n- cluster: {} nodes x 8 GPUs; {} pods in {} gangs, "
      "all running ({} single-pod CPU jobs, {} gangs of {} CPU pods, one 8-GPU pod on every "
      "node); one new 1-GPU job a cycle in a queue guaranteed 8 GPUs\n- {} timed cycles, "
      "this thread's CPU time\n\n",
      describeMachine(), r.shape.nodes, r.pods, r.gangs, r.shape.single_jobs, r.shape.gangs,
      r.shape.gang_size, r.shape.cycles);
  out += "| step | p50 ms | p99 ms |\n|---|---:|---:|\n";
  auto row = [&](const char* name, const std::vector<double>& samples) {
    out += fmt::format("| {} | {:.1f} | {:.1f} |\n", name, percentile(samples, 0.5),
                       percentile(samples, 0.99));
  };
  row("snapshot (buildClusterSnapshot)", r.snapshot_ms);
  row("engine sync (EngineSync::sync)", r.load_ms);
  row("schedule", r.schedule_ms);
  row("action plan", r.plan_ms);
  row("cycle", r.total_ms);
  const DrainCycle& d = r.drain;
  out += fmt::format(
      "\nThe drain: {} pending single-pod CPU jobs appear at once; one cycle admits {} of "
      "them.\n\n| step | ms | per admitted gang, us |\n|---|---:|---:|\n",
      r.shape.backlog, d.admitted);
  const double per = 1e3 / static_cast<double>(std::max<std::size_t>(1, d.admitted));
  for (const auto& [name, ms] :
       {std::pair{"snapshot", d.snapshot_ms}, std::pair{"engine sync", d.load_ms},
        std::pair{"schedule", d.schedule_ms}, std::pair{"action plan", d.plan_ms},
        std::pair{"cycle", d.total_ms}})
    out += fmt::format("| {} | {:.1f} | {:.1f} |\n", name, ms, ms * per);
  out += fmt::format(
      "\n- cycles that admitted the new job by preempting one borrowing pod: {} of {}\n"
      "- gangs sent to the engine again, a cycle: {:.1f}; objects refused: {}\n"
      "- peak RSS: {:.0f} MiB\n",
      r.cycles_that_reclaimed, r.shape.cycles,
      static_cast<double>(r.gangs_resent) / std::max(1, r.shape.cycles), r.refused,
      static_cast<double>(r.peak_rss_bytes) / (1024.0 * 1024.0));
  return out;
}

}  // namespace troupe::bench
