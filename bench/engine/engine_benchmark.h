#pragma once

#include <cstdint>
#include <string>

#include "bench/engine/synthetic_cluster.h"
#include "queueing/policy.h"

namespace troupe::bench {

struct EngineBenchOptions {
  queueing::PolicyKind policy = queueing::PolicyKind::Troupe;
  int full_repeats = 5;          // full cycles, each on a freshly loaded engine
  int incremental_repeats = 40;  // of each kind: one arrival, one completion
  // Most cycles spent settling (until a cycle decides nothing) before the settled
  // incremental cycles are measured.
  int max_settle_cycles = 500;
};

// Figures for one synthetic cluster. Times are CPU time of the one benchmark thread
// unless named wall.
struct EngineBenchRow {
  SyntheticShape shape;
  size_t running_gangs = 0;
  // Engine::fromSnapshot: indexing the whole cluster (not part of a cycle).
  double load_ms = 0;
  // schedule() on a freshly loaded engine: every pending gang considered.
  double full_p50_ms = 0;
  double full_p99_ms = 0;
  double full_wall_p50_ms = 0;      // the same cycles in wall-clock time
  int64_t full_decisions = 0;       // admissions + preemptions + resizes of one full cycle
  double decisions_per_second = 0;  // full_decisions / full p50
  double gangs_per_second = 0;      // pending gangs considered / full p50
  // One submit() or remove() right after the first full cycle, then schedule(). The full
  // cycle leaves a backlog of reclaims, so these cycles also carry on with that backlog.
  double arrival_p50_ms = 0;
  double arrival_p99_ms = 0;
  double completion_p50_ms = 0;
  double completion_p99_ms = 0;
  // Cycles with no delta (now + 1 s each) after the first full cycle until one decided
  // nothing; settled is false when max_settle_cycles ran out first.
  int settle_cycles = 0;
  bool settled = false;
  double settle_ms = 0;  // CPU time of those cycles together
  // One submit() or remove() into the settled state, then schedule(). The state is
  // settled again (untimed) before each sample.
  double settled_arrival_p50_ms = 0;
  double settled_arrival_p99_ms = 0;
  double settled_completion_p50_ms = 0;
  double settled_completion_p99_ms = 0;
  // Heap the loaded engine holds after its first cycle (the snapshot excluded), in all
  // and per pending gang; 0 when the allocator cannot tell.
  int64_t engine_heap_bytes = 0;
  double heap_bytes_per_pending = 0;
  int64_t peak_rss_bytes = 0;
};

EngineBenchRow runEngineBench(const SyntheticShape& shape, const EngineBenchOptions& options);

// The Markdown table's header lines and one row.
std::string markdownHeader();
std::string markdownRow(const EngineBenchRow& row, const std::string& varied);

}  // namespace troupe::bench
