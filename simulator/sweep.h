#pragma once

#include <string>
#include <vector>

#include "common/result.h"
#include "simulator/cluster_scale.h"
#include "simulator/replay_inputs.h"

namespace troupe::simulator {

// A sweep: one replay per (scale, policy), each run by `program sim ...` as a child
// process, then a table and a picture of them all (docs/simulator.md, "Sweeps").
struct SweepPlan {
  std::string program;  // the troupe executable the replays run with
  ReplayInputs base;    // everything but the scale and the policy
  std::vector<ClusterScale> scales;
  std::vector<std::string> policies;
  std::string out;   // out/runs/<policy>-<scale>/ per replay; sweep.{md,csv,svg} in out/
  int parallel = 2;  // replays at once
  // Keep a replay whose summary.json says it ran with exactly the same inputs.
  bool reuse = false;
};

struct SweepOutcome {
  std::string markdown;  // what sweep.md holds
  int replays_run = 0;
  int replays_reused = 0;
};

// The directory of one replay under `out`: runs/troupe-1_6 for policy troupe at scale 1/6.
std::string sweepRunDir(const std::string& out, const std::string& policy, ClusterScale scale);

// Runs the plan. Errors: the output directory cannot be made, a replay fails (naming its
// log), or a summary cannot be read.
Result<SweepOutcome> runSweep(const SweepPlan& plan);

}  // namespace troupe::simulator
