#include <fmt/format.h>

#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>

#include "cmd/commands.h"
#include "simulator/cluster_spec.h"
#include "simulator/report_writer.h"
#include "simulator/simulation.h"
#include "simulator/trace.h"

namespace troupe::cmd {
namespace {

struct SimFlags {
  std::string trace;
  std::string cluster;
  std::string policy = "troupe";
  std::string out;
  int64_t from_s = std::numeric_limits<int64_t>::min();
  int64_t to_s = std::numeric_limits<int64_t>::max();
  int64_t checkpoint_interval_s = 1800;
  bool elastic = false;
  std::string topology = "preferred";
  bool quiet = false;
};

int runSim(const SimFlags& flags) {
  auto fail = [](const Error& e) {
    fmt::print(stderr, "troupe sim: {}\n", e.describe());
    return 1;
  };
  simulator::SimulationOptions options;
  if (flags.policy == "fifo") {
    options.policy = queueing::PolicyKind::Fifo;
  } else if (flags.policy == "troupe") {
    options.policy = queueing::PolicyKind::Troupe;
  } else {
    return fail(makeError(ErrorCode::Invalid, "--policy",
                          fmt::format("must be fifo or troupe, got '{}'", flags.policy)));
  }
  if (flags.topology == "none") {
    options.gangs.topology = queueing::TopologyMode::None;
  } else if (flags.topology == "preferred") {
    options.gangs.topology = queueing::TopologyMode::Preferred;
  } else if (flags.topology == "required") {
    options.gangs.topology = queueing::TopologyMode::Required;
  } else {
    return fail(
        makeError(ErrorCode::Invalid, "--topology",
                  fmt::format("must be none, preferred or required, got '{}'", flags.topology)));
  }
  if (flags.checkpoint_interval_s < 0) {
    return fail(makeError(ErrorCode::Invalid, "--checkpoint-interval", "must be >= 0"));
  }
  if (flags.from_s >= flags.to_s) {
    return fail(
        makeError(ErrorCode::Invalid, "--to",
                  fmt::format("must be after --from ({}), got {}", flags.from_s, flags.to_s)));
  }
  options.checkpoint_interval_s = flags.checkpoint_interval_s;
  options.gangs.elastic = flags.elastic;
  options.progress = flags.quiet ? nullptr : stderr;

  auto cluster = simulator::readClusterSpec(flags.cluster);
  if (!cluster) return fail(cluster.error());
  auto trace = simulator::readTrace(flags.trace);
  if (!trace) return fail(trace.error());
  auto jobs = simulator::selectWindow(*trace, flags.from_s, flags.to_s);

  auto result = simulator::simulate(*cluster, jobs, options);
  if (!result) return fail(result.error());
  if (auto s = simulator::writeReport(flags.out, result->summary, result->jobs); !s) {
    return fail(s.error());
  }
  const auto& sum = result->summary;
  fmt::print(
      "policy {}: {} jobs ({} skipped), avg JCT {:.0f} s, p99 JCT {:.0f} s, avg queue delay "
      "{:.0f} s, utilization {:.3f}, min guaranteed share {:.3f}, Jain {:.3f}, {} preemptions, "
      "makespan {:.0f} s ({} cycles, {:.1f} s wall)\n",
      sum["policy"].get<std::string>(), sum["jobs"].get<int64_t>(),
      sum["skipped_jobs"].get<int64_t>(), sum["avg_jct_s"].get<double>(),
      sum["p99_jct_s"].get<double>(), sum["avg_queue_delay_s"].get<double>(),
      sum["gpu_utilization"].get<double>(), sum["min_guaranteed_share_ratio"].get<double>(),
      sum["jain_fairness"].get<double>(), sum["preemptions"].get<int64_t>(),
      sum["makespan_s"].get<double>(), sum["scheduling_cycles"].get<int64_t>(),
      sum["wall_seconds"].get<double>());
  fmt::print("wrote {}/summary.json and {}/jobs.csv\n", flags.out, flags.out);
  return 0;
}

}  // namespace

void addSimCommand(CLI::App& app) {
  auto flags = std::make_shared<SimFlags>();
  auto* cmd = app.add_subcommand(
      "sim", "Replay a job trace through the scheduling engine on simulated time");
  cmd->add_option("--trace", flags->trace,
                  "Trace CSV: job_id,submit_time_s,num_gpus,duration_s,virtual_cluster")
      ->required();
  cmd->add_option("--cluster", flags->cluster, "Cluster YAML (docs/simulator.md)")->required();
  cmd->add_option("--policy", flags->policy, "fifo or troupe")->capture_default_str();
  cmd->add_option("--out", flags->out, "Directory for summary.json and jobs.csv")->required();
  cmd->add_option("--from", flags->from_s, "Replay only jobs submitted at or after S seconds");
  cmd->add_option("--to", flags->to_s, "Replay only jobs submitted before S seconds");
  cmd->add_option("--checkpoint-interval", flags->checkpoint_interval_s,
                  "Seconds between checkpoints of a running job; 0: none")
      ->capture_default_str();
  cmd->add_flag("--elastic", flags->elastic,
                "Let multi-pod jobs run with fewer pods (at proportionally lower speed)");
  cmd->add_option("--topology", flags->topology,
                  "Rack constraint on multi-pod jobs: none, preferred or required")
      ->capture_default_str();
  cmd->add_flag("--quiet", flags->quiet, "No progress bar");
  cmd->callback([flags] { throw CommandExit{runSim(*flags)}; });
}

}  // namespace troupe::cmd
