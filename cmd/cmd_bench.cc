#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "bench/engine/engine_benchmark.h"
#include "bench/support/machine_info.h"
#include "cmd/commands.h"

namespace troupe::cmd {
namespace {

struct EngineBenchFlags {
  std::vector<int> nodes = {1000, 5000, 10000};
  std::vector<int> queues = {100, 1000};
  std::vector<int> pending = {10000, 50000, 100000};
  int repeat = 5;
  int incremental = 40;
  uint64_t seed = 20171001;
  std::string policy = "troupe";
  int gpu_types = 1;
  bool quick = false;
};

// Targets for the largest configuration (docs/benchmarks.md).
constexpr double kFullCycleTargetMs = 100;
constexpr double kIncrementalTargetMs = 5;
constexpr double kBytesPerGangTarget = 2048;

int runEngineBench(EngineBenchFlags flags) {
  if (flags.quick) {
    flags.nodes = {1000};
    flags.queues = {100};
    flags.pending = {10000};
    flags.repeat = 2;
    flags.incremental = 10;
  }
  bench::EngineBenchOptions options;
  if (flags.policy == "fifo") {
    options.policy = queueing::PolicyKind::Fifo;
  } else if (flags.policy == "troupe") {
    options.policy = queueing::PolicyKind::Troupe;
  } else {
    fmt::print(stderr, "troupe bench engine: --policy: must be fifo or troupe, got '{}'\n",
               flags.policy);
    return 1;
  }
  for (auto* list : {&flags.nodes, &flags.queues, &flags.pending}) {
    if (list->empty() || *std::min_element(list->begin(), list->end()) < 1) {
      fmt::print(stderr, "troupe bench engine: --nodes, --queues and --pending need values >= 1\n");
      return 1;
    }
    std::sort(list->begin(), list->end());
    list->erase(std::unique(list->begin(), list->end()), list->end());
  }
  if (flags.gpu_types != 1 && flags.gpu_types != 2) {
    fmt::print(stderr, "troupe bench engine: --gpu-types: must be 1 or 2, got {}\n",
               flags.gpu_types);
    return 1;
  }
  if (flags.repeat < 1 || flags.incremental < 1) {
    fmt::print(stderr, "troupe bench engine: --repeat and --incremental must be >= 1\n");
    return 1;
  }
  options.full_repeats = flags.repeat;
  options.incremental_repeats = flags.incremental;

  // Vary one dimension at a time around the base: the largest value of each list.
  bench::SyntheticShape base;
  base.nodes = flags.nodes.back();
  base.queues = flags.queues.back();
  base.pending = flags.pending.back();
  base.seed = flags.seed;
  base.gpu_types = flags.gpu_types;
  std::vector<std::pair<std::string, bench::SyntheticShape>> plan;
  for (int n : flags.nodes) {
    auto s = base;
    s.nodes = n;
    plan.emplace_back("nodes", s);
  }
  for (int q : flags.queues) {
    auto s = base;
    s.queues = q;
    plan.emplace_back("queues", s);
  }
  for (int p : flags.pending) {
    auto s = base;
    s.pending = p;
    plan.emplace_back("pending", s);
  }

  fmt::print("# troupe bench engine\n\n");
  fmt::print("- machine: {}\n", bench::describeMachine());
  fmt::print(
      "- policy: {}; seed: {}; GPU types: {}; {} full cycles and {} incremental cycles of each "
      "kind per row; one thread\n\n",
      flags.policy, flags.seed, flags.gpu_types, flags.repeat, flags.incremental);
  fmt::print("{}", bench::markdownHeader());
  std::fflush(stdout);
  std::map<std::tuple<int, int, int>, bench::EngineBenchRow> done;
  for (const auto& [varied, shape] : plan) {
    auto key = std::tuple{shape.nodes, shape.queues, shape.pending};
    bool base_row =
        shape.nodes == base.nodes && shape.queues == base.queues && shape.pending == base.pending;
    if (done.count(key)) continue;
    auto row = bench::runEngineBench(shape, options);
    done.emplace(key, row);
    fmt::print("{}", bench::markdownRow(row, base_row ? "base" : varied));
    std::fflush(stdout);
  }
  const auto& top = done.at({base.nodes, base.queues, base.pending});
  fmt::print("\nTargets at the base ({} nodes, {} queues, {} pending):\n", base.nodes, base.queues,
             base.pending);
  fmt::print("- full cycle p50 {:.2f} ms (target < {:.0f} ms): {}\n", top.full_p50_ms,
             kFullCycleTargetMs, top.full_p50_ms < kFullCycleTargetMs ? "met" : "missed");
  // The target speaks of one arrival or completion into a steady state: the settled
  // figures. Those right after the full cycle carry its backlog of reclaims as well.
  auto verdict = [](double ms) { return ms < kIncrementalTargetMs ? "met" : "missed"; };
  if (top.settled) {
    for (const auto& [kind, p50, p99] :
         {std::tuple{"arrival", top.settled_arrival_p50_ms, top.settled_arrival_p99_ms},
          std::tuple{"completion", top.settled_completion_p50_ms, top.settled_completion_p99_ms}}) {
      fmt::print(
          "- incremental cycle into a settled cluster, {}: p50 {:.3f} ms, p99 {:.3f} ms (target "
          "< {:.0f} ms): p50 {}, p99 {}\n",
          kind, p50, p99, kIncrementalTargetMs, verdict(p50), verdict(p99));
    }
  } else {
    fmt::print(
        "- incremental cycle into a settled cluster: not measured, the cluster did not "
        "settle within the cycle cap\n");
  }
  fmt::print(
      "- incremental cycle right after the full cycle (its reclaim backlog), arrival / "
      "completion p99: {:.3f} / {:.3f} ms\n",
      top.arrival_p99_ms, top.completion_p99_ms);
  if (top.heap_bytes_per_pending > 0) {
    fmt::print("- engine heap {:.0f} B per pending gang (target < {:.0f} B): {}\n",
               top.heap_bytes_per_pending, kBytesPerGangTarget,
               top.heap_bytes_per_pending < kBytesPerGangTarget ? "met" : "missed");
  } else {
    fmt::print("- engine heap: not measurable with this allocator\n");
  }
  return 0;
}

}  // namespace

void addBenchCommand(CLI::App& app) {
  auto* bench = app.add_subcommand("bench", "Run a benchmark and print its figures");
  bench->require_subcommand(1);
  auto flags = std::make_shared<EngineBenchFlags>();
  auto* engine = bench->add_subcommand(
      "engine", "Scheduling-engine cycle time, throughput and memory on synthetic clusters");
  engine->add_option("--nodes", flags->nodes, "Node counts (8 GPUs each)")
      ->delimiter(',')
      ->capture_default_str();
  engine->add_option("--queues", flags->queues, "Leaf queue counts (three-level tree)")
      ->delimiter(',')
      ->capture_default_str();
  engine->add_option("--pending", flags->pending, "Pending gang counts")
      ->delimiter(',')
      ->capture_default_str();
  engine->add_option("--repeat", flags->repeat, "Full cycles per row")->capture_default_str();
  engine->add_option("--incremental", flags->incremental, "Incremental cycles of each kind per row")
      ->capture_default_str();
  engine->add_option("--seed", flags->seed, "Seed of the synthetic clusters")
      ->capture_default_str();
  engine->add_option("--policy", flags->policy, "fifo or troupe")->capture_default_str();
  engine
      ->add_option("--gpu-types", flags->gpu_types,
                   "1, or 2: half the racks of each of two GPU types, a third of the pending "
                   "gangs accepting either")
      ->capture_default_str();
  engine->add_flag("--quick", flags->quick,
                   "Smoke run: 1000 nodes, 100 queues, 10000 pending, few repeats");
  engine->callback([flags] { throw CommandExit{runEngineBench(*flags)}; });
  addApiBenchCommands(*bench);
}

}  // namespace troupe::cmd
