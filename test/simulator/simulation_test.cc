#include "simulator/simulation.h"

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "queueing/policy_names.h"
#include "simulator/node_list.h"
#include "simulator/report_writer.h"
#include "test/support/temp_dir.h"

namespace troupe::simulator {
namespace {

using queueing::PolicyKind;

const char* policyName(PolicyKind kind) { return kind == PolicyKind::Fifo ? "fifo" : "troupe"; }

ClusterSpec clusterFrom(const std::string& yaml) {
  auto spec = parseClusterSpec(yaml);
  REQUIRE(spec.ok());
  return std::move(spec).value();
}

TraceJob job(std::string id, int64_t submit, int gpus, int64_t duration, std::string queue) {
  return TraceJob{std::move(id), submit, gpus, duration, std::move(queue)};
}

SimulationResult replay(const ClusterSpec& cluster, const std::vector<TraceJob>& trace,
                        PolicyKind policy, int64_t checkpoint = 1800, bool elastic = false) {
  SimulationOptions options;
  options.policy = policy;
  options.checkpoint_interval_s = checkpoint;
  options.gangs.elastic = elastic;
  auto result = simulate(cluster, trace, options);
  REQUIRE(result.ok());
  return std::move(result).value();
}

// The invariants every replay keeps, whatever the policy:
// - every replayed job finishes exactly once, after it started, and not before it was
//   submitted; its run time covers its work plus the work it redid;
// - at no moment does any node have more GPUs held than it has;
// - the summary counts what jobs.csv lists.
void checkInvariants(const ClusterSpec& cluster, const SimulationResult& result) {
  std::set<std::string> ids;
  for (const auto& j : result.jobs) {
    INFO("job " << j.id);
    CHECK(ids.insert(j.id).second);
    REQUIRE(j.finished());
    CHECK(j.start_s >= j.submit_s);
    CHECK(j.end_s >= j.start_s);
  }
  // GPU-seconds per job from its segments (in thousandths), and whether it always ran at
  // full size.
  std::vector<int64_t> gpu_seconds(result.jobs.size(), 0);
  std::vector<bool> full_size(result.jobs.size(), true);
  // Node sweep: +thousandths at start, - at end; ends before starts at equal times.
  std::map<int, std::vector<std::pair<int64_t, int64_t>>> events;
  for (const auto& seg : result.segments) {
    REQUIRE(seg.job < result.jobs.size());
    CHECK(seg.start_s < seg.end_s);
    CHECK(seg.start_s >= result.jobs[seg.job].start_s);
    CHECK(seg.end_s <= result.jobs[seg.job].end_s);
    gpu_seconds[seg.job] += seg.gpuMilli() * (seg.end_s - seg.start_s);
    if (seg.gpuMilli() != result.jobs[seg.job].gpu_milli) full_size[seg.job] = false;
    for (const auto& [node, milli] : seg.placement) {
      events[node].emplace_back(seg.start_s, milli);
      events[node].emplace_back(seg.end_s, -milli);
    }
  }
  for (auto& [node, list] : events) {
    std::sort(list.begin(), list.end());
    int64_t held = 0;
    for (const auto& [t, delta] : list) {
      held += delta;
      INFO("node " << cluster.nodes[static_cast<size_t>(node)].name << " at t=" << t);
      REQUIRE(held <= int64_t{cluster.nodes[static_cast<size_t>(node)].gpus} * 1000);
      REQUIRE(held >= 0);
    }
  }
  // At full size a job runs exactly its work plus the work it redid; an elastic job that
  // ran smaller at times did at least its work (its end rounds up to a whole second).
  for (size_t i = 0; i < result.jobs.size(); ++i) {
    const auto& j = result.jobs[i];
    INFO("job " << j.id);
    int64_t needed = j.gpu_milli * j.duration_s;
    if (full_size[i]) {
      CHECK(gpu_seconds[i] == j.gpu_milli * (j.duration_s + j.lost_work_s));
    } else {
      CHECK(gpu_seconds[i] >= needed);
    }
  }
  // The summary agrees with the per-job rows.
  const auto& sum = result.summary;
  for (const char* key :
       {"jobs", "avg_jct_s", "p50_jct_s", "p95_jct_s", "p99_jct_s", "avg_queue_delay_s",
        "p99_queue_delay_s", "large", "gpu_utilization", "jain_fairness",
        "min_guaranteed_share_ratio", "preemptions", "makespan_s"}) {
    INFO("summary key " << key);
    CHECK(sum.contains(key));
  }
  CHECK(sum["jobs"].get<size_t>() == result.jobs.size());
  double jct_sum = 0;
  int64_t preemptions = 0;
  size_t large = 0;
  for (const auto& j : result.jobs) {
    jct_sum += static_cast<double>(j.jctSeconds());
    preemptions += j.preemptions;
    if (j.gpus > 8) ++large;
  }
  if (!result.jobs.empty()) {
    CHECK(sum["avg_jct_s"].get<double>() ==
          Approx(jct_sum / static_cast<double>(result.jobs.size())));
  }
  CHECK(sum["preemptions"].get<int64_t>() == preemptions);
  CHECK(sum["large"]["jobs"].get<size_t>() == large);
  CHECK(sum["p50_jct_s"].get<double>() <= sum["p95_jct_s"].get<double>());
  CHECK(sum["p95_jct_s"].get<double>() <= sum["p99_jct_s"].get<double>());
  double util = sum["gpu_utilization"].get<double>();
  CHECK(util >= 0.0);
  CHECK(util <= 1.0);
  double ratio = sum["min_guaranteed_share_ratio"].get<double>();
  CHECK(ratio >= 0.0);
  CHECK(ratio <= 1.0);
  // Idle GPUs while gangs wait: the causes add up to the whole, which is at most every GPU
  // of the cluster for as long as some gang waited.
  const auto& idle = sum["idle_while_waiting"];
  double causes = 0;
  for (const auto& [cause, hours] : idle["by_cause_gpu_hours"].items()) {
    INFO("cause " << cause);
    CHECK(hours.get<double>() >= 0.0);
    causes += hours.get<double>();
  }
  CHECK(causes == Approx(idle["gpu_hours"].get<double>()).margin(1e-9));
  CHECK(idle["gpu_hours"].get<double>() <=
        static_cast<double>(cluster.totalGpus()) * idle["waiting_seconds"].get<double>() / 3600.0 +
            1e-9);
  CHECK(sum["guarantee_deficit_gpu_hours"].get<double>() >= 0.0);
  // jobs.csv has the header and one line per job.
  std::ostringstream csv;
  writeJobsCsv(csv, result.jobs);
  const std::string text = csv.str();
  CHECK(static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) == result.jobs.size() + 1);
}

// Under strict FIFO no job starts before one submitted earlier (ties by id).
void checkFifoOrder(const SimulationResult& result) {
  std::vector<const JobOutcome*> order;
  for (const auto& j : result.jobs) order.push_back(&j);
  std::sort(order.begin(), order.end(), [](const JobOutcome* a, const JobOutcome* b) {
    return a->submit_s != b->submit_s ? a->submit_s < b->submit_s : a->id < b->id;
  });
  for (size_t i = 1; i < order.size(); ++i) {
    INFO(order[i - 1]->id << " then " << order[i]->id);
    CHECK(order[i - 1]->start_s <= order[i]->start_s);
  }
}

// What writeReport puts on disk reads back consistently: summary.json's job count and
// mean JCT match the jct_s column of jobs.csv.
void checkFilesAgree(const SimulationResult& result) {
  testing::TempDir dir;
  REQUIRE(writeReport(dir.path(), result.summary, result.jobs).ok());
  std::ifstream summary_file(dir.file("summary.json"));
  auto summary = nlohmann::json::parse(summary_file);
  std::ifstream csv(dir.file("jobs.csv"));
  std::string line;
  std::getline(csv, line);
  CHECK(line == kJobsCsvHeader);
  size_t rows = 0;
  double jct_sum = 0;
  while (std::getline(csv, line)) {
    // jct_s is the 9th column.
    size_t pos = 0;
    for (int c = 0; c < 8; ++c) pos = line.find(',', pos) + 1;
    jct_sum += std::stod(line.substr(pos, line.find(',', pos) - pos));
    ++rows;
  }
  CHECK(summary["jobs"].get<size_t>() == rows);
  CHECK(summary["avg_jct_s"].get<double>() == Approx(jct_sum / static_cast<double>(rows)));
}

const char* kSmallPhilly = R"(
nodePools:
  - {name: n, count: 16, gpusPerNode: 8, nodesPerRack: 4, racksPerBlock: 2,
     gpuTopology: {nvlinkDomainSize: 4, numaNodes: 2}}
defaultQueue: default
queues:
  - {name: 6214e9, guaranteed: 32}
  - {name: 11cb48, guaranteed: 16}
  - {name: 6c71a0, guaranteed: 16}
  - {name: b436b2, guaranteed: 32}
  - {name: ee9e8c, guaranteed: 16}
  - {name: 103959, guaranteed: 8}
  - {name: 0e4a51, guaranteed: 8}
  - {name: default}
)";

TEST_CASE("a slice of the Philly trace replays with every invariant kept under both policies",
          "[simulator][replay]") {
  auto trace = readTrace(std::string(TROUPE_SOURCE_DIR) + "/test/simulator/data/philly_slice.csv");
  REQUIRE(trace.ok());
  ClusterSpec cluster = clusterFrom(kSmallPhilly);
  for (PolicyKind policy : {PolicyKind::Fifo, PolicyKind::Troupe}) {
    DYNAMIC_SECTION(policyName(policy)) {
      auto result = replay(cluster, *trace, policy);
      CHECK(result.jobs.size() == trace->size());
      checkInvariants(cluster, result);
      if (policy == PolicyKind::Fifo) {
        checkFifoOrder(result);
        CHECK(result.summary["preemptions"] == 0);
      }
      checkFilesAgree(result);
    }
  }
}

TEST_CASE("jobs of 0 GPUs or larger than the cluster are left out and counted",
          "[simulator][replay]") {
  ClusterSpec cluster = clusterFrom(
      "nodes: [{name: a, gpus: 8}, {name: b, gpus: 8}]\n"
      "queues: [{name: q, guaranteed: 16}]");
  // 16 GPUs in all: "huge" asks 24, "none" asks 0; "pair" needs 2 pods of 8.
  std::vector<TraceJob> trace = {job("none", 0, 0, 10, "q"), job("pair", 0, 16, 10, "q"),
                                 job("huge", 1, 24, 10, "q"), job("one", 2, 1, 10, "q")};
  for (PolicyKind policy : {PolicyKind::Fifo, PolicyKind::Troupe}) {
    DYNAMIC_SECTION(policyName(policy)) {
      auto result = replay(cluster, trace, policy);
      CHECK(result.skipped_jobs == 2);
      CHECK(result.summary["skipped_jobs"] == 2);
      REQUIRE(result.jobs.size() == 2);
      CHECK(result.jobs[0].pods == 2);
      checkInvariants(cluster, result);
      // "pair" holds the whole cluster during [0, 10); "one" waits for it.
      CHECK(result.jobs[0].end_s == 10);
      CHECK(result.jobs[1].start_s == 10);
    }
  }
}

TEST_CASE("a job of an unknown virtual cluster goes to the default queue, or is an error",
          "[simulator][replay]") {
  std::vector<TraceJob> trace = {job("a", 0, 1, 10, "mystery")};
  ClusterSpec with_default = clusterFrom(
      "nodes: [{name: a, gpus: 8}]\n"
      "queues: [{name: q}, {name: other}]\ndefaultQueue: other");
  auto result = replay(with_default, trace, PolicyKind::Troupe);
  REQUIRE(result.jobs.size() == 1);
  CHECK(result.jobs[0].queue == "other");

  ClusterSpec without = clusterFrom("nodes: [{name: a, gpus: 8}]\nqueues: [{name: q}]");
  auto failed = simulate(without, trace, SimulationOptions{});
  REQUIRE_FALSE(failed.ok());
  CHECK(failed.error().field_path == "virtual_cluster");
}

TEST_CASE("strict FIFO lets a large head job block smaller ones behind it",
          "[simulator][replay][fifo]") {
  ClusterSpec cluster = clusterFrom(
      "nodes: [{name: a, gpus: 8}, {name: b, gpus: 8}]\n"
      "queues: [{name: q, guaranteed: 16}]");
  // t=0 "first" takes 8 GPUs for 100 s; t=1 "big" needs all 16; t=2 "small" needs 1.
  // FIFO: big waits for first (starts at 100), small waits behind big (starts at 150).
  std::vector<TraceJob> trace = {job("first", 0, 8, 100, "q"), job("big", 1, 16, 50, "q"),
                                 job("small", 2, 1, 10, "q")};
  auto result = replay(cluster, trace, PolicyKind::Fifo);
  checkInvariants(cluster, result);
  checkFifoOrder(result);
  CHECK(result.jobs[1].start_s == 100);
  CHECK(result.jobs[2].start_s == 150);
}

TEST_CASE("GPUs held for a starving gang count as idle by reservation, behind a FIFO head as such",
          "[simulator][replay][idle]") {
  ClusterSpec cluster = clusterFrom(
      "nodes: [{name: a, gpus: 8}, {name: b, gpus: 8}]\n"
      "queues: [{name: q, guaranteed: 16}]");
  // t=0: "A" takes node a (8 GPUs, until 10000), "B" 4 GPUs of b (until 20000). t=1: "big"
  // needs both nodes whole; it waits, and under troupe starves at 1 + 3600 = 3601 and
  // reserves a and b. t=4000: "small" (4 GPUs) would fit on b's 4 free GPUs, but they are
  // reserved (troupe) or behind the head "big" (fifo). "big" starts at 20000 when B ends,
  // "small" at 20100.
  std::vector<TraceJob> trace = {job("A", 0, 8, 10000, "q"), job("B", 0, 4, 20000, "q"),
                                 job("big", 1, 16, 100, "q"), job("small", 4000, 4, 100, "q")};
  for (PolicyKind policy : {PolicyKind::Fifo, PolicyKind::Troupe}) {
    DYNAMIC_SECTION(policyName(policy)) {
      auto result = replay(cluster, trace, policy);
      checkInvariants(cluster, result);
      CHECK(result.jobs[2].start_s == 20000);
      CHECK(result.jobs[3].start_s == 20100);
      const auto& idle = result.summary["idle_while_waiting"];
      const auto& causes = idle["by_cause_gpu_hours"];
      // [1,4000): 4 free on b, only "big" waits and fits nowhere: 4 * 3999 = 15,996 GPU-s.
      // [4000,10000): "small" would take b's 4: 4 * 6000 = 24,000 held back.
      // [10000,20000): 8 free on a and 4 on b: "small" would take b's 4 (4 * 10000 =
      //   40,000 held back), 8 fit no waiting gang (80,000).
      // Fragmentation 15,996 + 80,000 = 95,996; held back 24,000 + 40,000 = 64,000.
      const char* held_back = policy == PolicyKind::Fifo ? "queue_head" : "reservation";
      const char* other = policy == PolicyKind::Fifo ? "reservation" : "queue_head";
      CHECK(causes["fragmentation"].get<double>() * 3600 == Approx(95996));
      CHECK(causes[held_back].get<double>() * 3600 == Approx(64000));
      CHECK(causes[other].get<double>() == 0);
      CHECK(causes["unexplained"].get<double>() == 0);
      CHECK(idle["gpu_hours"].get<double>() * 3600 == Approx(95996 + 64000));
      CHECK(idle["waiting_seconds"] == 20100 - 1);
      // q (guaranteed 16) is owed 16 while "big" or A and B wait or run, and holds 12,
      // then 4: 4 * 3999 + 4 * 6000 + 12 * 10000 = 159,996 GPU-s.
      CHECK(result.summary["guarantee_deficit_gpu_hours"].get<double>() * 3600 == Approx(159996));
      const auto& reservations = result.summary["reservations"];
      if (policy == PolicyKind::Troupe) {
        // "big" holds its reservation from 3601 until it starts at 20000; "small", starving
        // since 7600, gets one when "big" frees the reservation at 20000 and starts at 20100.
        CHECK(reservations["made"] == 2);
        CHECK(reservations["started"] == 2);
        CHECK(reservations["max_hold_s"] == 20000 - 3601);
        CHECK(result.jobs[2].reserved_s == 20000 - 3601);
        CHECK(result.jobs[3].reserved_s == 100);
        CHECK(reservations["big_jobs_reserved"] == 0);  // 16 GPUs: not a "big" job
        CHECK(reservations["small_jobs_reserved"] == 2);
      } else {
        CHECK(reservations["made"] == 0);
      }
    }
  }
}

TEST_CASE("a job preempted to honour a guarantee resumes from its last checkpoint",
          "[simulator][replay][preemption]") {
  ClusterSpec cluster = clusterFrom(
      "nodes: [{name: a, gpus: 8}, {name: b, gpus: 8}]\n"
      "queues: [{name: borrower, guaranteed: 8}, {name: owner, guaranteed: 8}]");
  // t=0 and t=10: "early" and "late" (queue borrower, guaranteed 8) take all 16 GPUs,
  // 1000 s of work each. t=250: "owed" (queue owner, guaranteed 8) arrives: Troupe
  // reclaims 8 GPUs from the borrower at once; the victim resumes when "owed" ends at 350.
  std::vector<TraceJob> trace = {job("early", 0, 8, 1000, "borrower"),
                                 job("late", 10, 8, 1000, "borrower"),
                                 job("owed", 250, 8, 100, "owner")};
  for (int64_t interval : {100, 0, 1800}) {
    DYNAMIC_SECTION("checkpoints every " << interval << " s") {
      auto result = replay(cluster, trace, PolicyKind::Troupe, interval);
      checkInvariants(cluster, result);
      const JobOutcome& owed = result.jobs[2];
      CHECK(owed.start_s == 250);
      CHECK(owed.end_s == 350);
      REQUIRE(result.jobs[0].preemptions + result.jobs[1].preemptions == 1);
      const JobOutcome& victim = result.jobs[0].preemptions == 1 ? result.jobs[0] : result.jobs[1];
      // It ran 250 - start s; checkpoints at multiples of the interval since its start
      // kept saved = floor(ran / interval) * interval (0 without checkpoints).
      int64_t ran = 250 - victim.start_s;
      int64_t saved = interval > 0 ? ran / interval * interval : 0;
      CHECK(victim.lost_work_s == ran - saved);
      CHECK(victim.end_s == 350 + 1000 - saved);
      CHECK(result.summary["min_guaranteed_share_ratio"].get<double>() == Approx(1.0));
    }
  }
}

TEST_CASE("random synthetic traces keep every invariant under both policies",
          "[simulator][replay]") {
  ClusterSpec cluster = clusterFrom(R"(
nodePools: [{name: n, count: 6, gpusPerNode: 8, nodesPerRack: 2, racksPerBlock: 3,
             gpuTopology: {nvlinkDomainSize: 4}}]
queues:
  - {name: org, guaranteed: 48}
  - {name: a, parent: org, guaranteed: 24}
  - {name: b, parent: org, guaranteed: 16}
  - {name: c, parent: org, guaranteed: 8}
)");
  const char* queues[] = {"a", "b", "c"};
  const int sizes[] = {1, 1, 1, 2, 4, 8, 8, 16, 24};
  for (uint64_t seed : {1u, 2u, 3u}) {
    // A small linear congruential stream: the trace is the same on every run.
    uint64_t x = seed * 2654435761u;
    auto next = [&x](uint64_t n) {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      return (x >> 33) % n;
    };
    std::vector<TraceJob> trace;
    int64_t t = 0;
    for (int i = 0; i < 120; ++i) {
      t += static_cast<int64_t>(next(60));
      trace.push_back(job(fmt::format("j{:03d}", i), t, sizes[next(9)],
                          1 + static_cast<int64_t>(next(3000)), queues[next(3)]));
    }
    for (PolicyKind policy : {PolicyKind::Fifo, PolicyKind::Troupe}) {
      for (bool elastic : {false, true}) {
        DYNAMIC_SECTION("seed " << seed << " " << policyName(policy)
                                << (elastic ? " elastic" : "")) {
          auto result = replay(cluster, trace, policy, 300, elastic);
          REQUIRE(result.jobs.size() == trace.size());
          checkInvariants(cluster, result);
          if (policy == PolicyKind::Fifo) checkFifoOrder(result);
        }
      }
    }
  }
}

TEST_CASE("random traces of GPU shares, whole GPUs and CPU-only pods keep every invariant",
          "[simulator][replay][gpu-sharing]") {
  // Two 8-GPU G2 nodes, two 2-GPU T4 nodes and a CPU-only node, one queue. The ledger
  // stops the replay on any share past a whole GPU or on a shared GPU given whole.
  auto cluster = parseNodeList(
      "sn,cpu_milli,memory_mib,gpu,model\n"
      "a,64000,262144,8,G2\nb,64000,262144,8,G2\nc,32000,131072,2,T4\n"
      "d,32000,131072,2,T4\ne,16000,65536,0,\n",
      "nodes.csv");
  REQUIRE(cluster.ok());
  const int whole[] = {1, 1, 2, 4, 8};
  for (uint64_t seed : {1u, 2u}) {
    uint64_t x = seed * 2654435761u;
    auto next = [&x](uint64_t n) {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      return (x >> 33) % n;
    };
    std::vector<TraceJob> trace;
    int64_t t = 0;
    for (int i = 0; i < 150; ++i) {
      t += static_cast<int64_t>(next(40));
      TraceJob j = job(fmt::format("p{:03d}", i), t, 0, 1 + static_cast<int64_t>(next(2000)), "");
      const uint64_t kind = next(3);  // a share, whole GPUs, or none
      if (kind == 0) {
        j.gpus = 1;
        j.gpu_milli = 50 * (1 + static_cast<int>(next(18)));  // 0.05 .. 0.9
      } else if (kind == 1) {
        j.gpus = whole[next(5)];
      }
      j.cpu_milli = 1000 * (1 + static_cast<int64_t>(next(16)));
      j.memory_mib = 1024 * (1 + static_cast<int64_t>(next(32)));
      trace.push_back(std::move(j));
    }
    for (const char* name : {"fifo", "troupe", "yarn-cs", "kueue", "tiresias", "srtf"}) {
      DYNAMIC_SECTION("seed " << seed << " " << name) {
        auto result = replay(*cluster, trace, *queueing::policyKindNamed(name), 300);
        REQUIRE(result.jobs.size() == trace.size());
        checkInvariants(*cluster, result);
        if (std::string(name) == "fifo") checkFifoOrder(result);
        CHECK(result.summary["fractional"]["jobs"].get<size_t>() > 0);
      }
    }
  }
}

}  // namespace
}  // namespace troupe::simulator
