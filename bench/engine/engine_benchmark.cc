#include "bench/engine/engine_benchmark.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <tuple>
#include <utility>
#include <vector>

#include "bench/support/memory_probe.h"
#include "common/check.h"
#include "common/thread_cpu_time.h"
#include "queueing/engine.h"

namespace troupe::bench {
namespace {

// Cycle times are the benchmark thread's CPU time (CLOCK_THREAD_CPUTIME_ID), so that
// other work on a shared machine does not inflate them; wall time is kept for the full
// cycle alongside.
struct Stamp {
  double cpu_ms = 0;
  std::chrono::steady_clock::time_point wall;
};

Stamp stamp() { return {threadCpuMs(), std::chrono::steady_clock::now()}; }

double msSince(const Stamp& start) { return stamp().cpu_ms - start.cpu_ms; }

double wallMsSince(const Stamp& start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start.wall)
      .count();
}

// Nearest-rank percentile of `samples` (sorted in place).
double percentileOf(std::vector<double>& samples, double p) {
  if (samples.empty()) return 0;
  std::sort(samples.begin(), samples.end());
  auto rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(samples.size())));
  return samples[std::clamp<size_t>(rank, 1, samples.size()) - 1];
}

queueing::Engine load(const queueing::Snapshot& snap, const queueing::Policy& policy) {
  auto engine = queueing::Engine::fromSnapshot(snap, policy);
  TROUPE_CHECK(engine.ok(), "the engine refused the synthetic cluster: {}",
               engine.error().describe());
  return std::move(engine).value();
}

// Cycles with no delta, `now` advancing 1 s each, until one decides nothing or `limit`
// cycles ran. Returns the cycles run and whether the last decided nothing.
std::pair<int, bool> settle(queueing::Engine& engine, queueing::Seconds& now, int limit) {
  for (int i = 1; i <= limit; ++i) {
    if (engine.schedule(++now).empty()) return {i, true};
  }
  return {limit, false};
}

// CPU ms of `repeats` incremental cycles: an arrival then a completion of a gang that was
// running in `snap`, each followed by one cycle. With `settle_limit` > 0 the engine is
// settled again (untimed) after each, so every sample starts from a steady state.
struct DeltaSamples {
  std::vector<double> arrival_ms, completion_ms;
};

DeltaSamples measureDeltas(queueing::Engine& engine, const queueing::Snapshot& snap,
                           const SyntheticShape& shape, queueing::Seconds& now, int repeats,
                           int settle_limit) {
  DeltaSamples out;
  std::size_t next_victim = 0;
  for (int i = 0; i < repeats; ++i) {
    ++now;
    auto start = stamp();
    auto status = engine.submit(makeSyntheticArrival(shape, i, now));
    engine.schedule(now);
    out.arrival_ms.push_back(msSince(start));
    TROUPE_CHECK(status.ok(), "synthetic arrival refused: {}", status.error().describe());
    if (settle_limit > 0) settle(engine, now, settle_limit);
    while (next_victim < snap.running.size() &&
           !engine.isRunning(snap.running[next_victim].spec.name)) {
      ++next_victim;
    }
    if (next_victim == snap.running.size()) continue;
    ++now;
    start = stamp();
    status = engine.remove(snap.running[next_victim++].spec.name);
    engine.schedule(now);
    out.completion_ms.push_back(msSince(start));
    TROUPE_CHECK(status.ok(), "synthetic completion refused: {}", status.error().describe());
    if (settle_limit > 0) settle(engine, now, settle_limit);
  }
  return out;
}

}  // namespace

EngineBenchRow runEngineBench(const SyntheticShape& shape, const EngineBenchOptions& options) {
  EngineBenchRow row;
  row.shape = shape;
  const queueing::Snapshot snap = makeSyntheticSnapshot(shape);
  row.running_gangs = snap.running.size();
  queueing::Policy policy{.kind = options.policy};

  std::vector<double> load_ms, full_ms, full_wall_ms;
  std::optional<queueing::Engine> steady;
  for (int r = 0; r < std::max(1, options.full_repeats); ++r) {
    steady.reset();
    int64_t heap_before = heapBytesInUse();
    auto start = stamp();
    queueing::Engine engine = load(snap, policy);
    load_ms.push_back(msSince(start));
    start = stamp();
    queueing::Decisions decisions = engine.schedule(snap.now);
    full_ms.push_back(msSince(start));
    full_wall_ms.push_back(wallMsSince(start));
    if (r == 0) {
      // The decisions are dropped before reading the heap: only the engine's state counts.
      row.full_decisions = static_cast<int64_t>(
          decisions.admissions.size() + decisions.preemptions.size() + decisions.resizes.size());
      decisions = {};
      int64_t heap_after = heapBytesInUse();
      if (heap_before > 0 && heap_after > heap_before) {
        row.engine_heap_bytes = heap_after - heap_before;
        row.heap_bytes_per_pending = static_cast<double>(row.engine_heap_bytes) /
                                     static_cast<double>(std::max(1, shape.pending));
      }
    }
    steady.emplace(std::move(engine));
  }
  row.load_ms = percentileOf(load_ms, 50);
  row.full_p50_ms = percentileOf(full_ms, 50);
  row.full_p99_ms = percentileOf(full_ms, 99);
  row.full_wall_p50_ms = percentileOf(full_wall_ms, 50);
  if (row.full_p50_ms > 0) {
    row.decisions_per_second = static_cast<double>(row.full_decisions) / (row.full_p50_ms / 1e3);
    row.gangs_per_second = static_cast<double>(shape.pending) / (row.full_p50_ms / 1e3);
  }

  // Incremental cycles into the steady state the full cycle left: one arrival, then one
  // completion of a gang that was running before, each followed by a cycle.
  queueing::Seconds now = snap.now;
  auto after_full = measureDeltas(*steady, snap, shape, now, options.incremental_repeats, 0);
  row.arrival_p50_ms = percentileOf(after_full.arrival_ms, 50);
  row.arrival_p99_ms = percentileOf(after_full.arrival_ms, 99);
  row.completion_p50_ms = percentileOf(after_full.completion_ms, 50);
  row.completion_p99_ms = percentileOf(after_full.completion_ms, 99);

  // The same into a settled state: a fresh engine's full cycle, then cycles with no delta
  // until one decides nothing; each timed arrival or completion starts from a state settled
  // again (untimed), so a sample is one delta into a steady state, not the backlog.
  steady.reset();
  steady.emplace(load(snap, policy));
  now = snap.now;
  steady->schedule(now);
  auto start = stamp();
  std::tie(row.settle_cycles, row.settled) = settle(*steady, now, options.max_settle_cycles);
  row.settle_ms = msSince(start);
  auto settled = measureDeltas(*steady, snap, shape, now, options.incremental_repeats,
                               options.max_settle_cycles);
  row.settled_arrival_p50_ms = percentileOf(settled.arrival_ms, 50);
  row.settled_arrival_p99_ms = percentileOf(settled.arrival_ms, 99);
  row.settled_completion_p50_ms = percentileOf(settled.completion_ms, 50);
  row.settled_completion_p99_ms = percentileOf(settled.completion_ms, 99);
  row.peak_rss_bytes = peakRssBytes();
  return row;
}

std::string markdownHeader() {
  return "| varied | nodes | queues | pending | running | load ms | full p50 ms | full p99 ms | "
         "full p50 wall ms | decisions | decisions/s | after full: arrival p50/p99 ms | after "
         "full: completion p50/p99 ms | settle cycles | settled: arrival p50/p99 ms | settled: "
         "completion p50/p99 ms | heap B/pending | peak RSS MiB |\n"
         "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n";
}

std::string markdownRow(const EngineBenchRow& row, const std::string& varied) {
  return fmt::format(
      "| {} | {} | {} | {} | {} | {:.1f} | {:.2f} | {:.2f} | {:.2f} | {} | {:.0f} | {:.3f} / "
      "{:.3f} | {:.3f} / {:.3f} | {}{} | {:.3f} / {:.3f} | {:.3f} / {:.3f} | {:.0f} | {:.0f} |\n",
      varied, row.shape.nodes, row.shape.queues, row.shape.pending, row.running_gangs, row.load_ms,
      row.full_p50_ms, row.full_p99_ms, row.full_wall_p50_ms, row.full_decisions,
      row.decisions_per_second, row.arrival_p50_ms, row.arrival_p99_ms, row.completion_p50_ms,
      row.completion_p99_ms, row.settle_cycles, row.settled ? "" : " (not settled)",
      row.settled_arrival_p50_ms, row.settled_arrival_p99_ms, row.settled_completion_p50_ms,
      row.settled_completion_p99_ms, row.heap_bytes_per_pending,
      static_cast<double>(row.peak_rss_bytes) / (1024.0 * 1024.0));
}

}  // namespace troupe::bench
