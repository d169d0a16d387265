#include <fmt/format.h>

#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cmd/commands.h"
#include "queueing/policy_names.h"
#include "simulator/cluster_scale.h"
#include "simulator/cluster_spec.h"
#include "simulator/replay_inputs.h"
#include "simulator/report_writer.h"
#include "simulator/simulation.h"
#include "simulator/sweep.h"
#include "simulator/trace.h"

namespace troupe::cmd {
namespace {

// The flags `troupe sim` and `troupe sim sweep` share.
struct ReplayFlags {
  std::string trace;
  std::string cluster;
  std::string out;
  std::optional<int64_t> from_s;
  std::optional<int64_t> to_s;
  int64_t checkpoint_interval_s = 1800;
  bool elastic = false;
  std::string topology = "preferred";
};

struct SimFlags : ReplayFlags {
  std::string policy = "troupe";
  std::string scale = "1";
  bool quiet = false;
};

struct SweepFlags : ReplayFlags {
  std::string scales = "1";
  std::string policies = queueing::policyKindNames();
  int parallel = 2;
  bool reuse = false;
};

int fail(const Error& e) {
  fmt::print(stderr, "troupe sim: {}\n", e.describe());
  return 1;
}

std::vector<std::string> splitList(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

Status checkPolicy(const std::string& policy, const std::string& field) {
  if (queueing::policyKindNamed(policy)) return {};
  return makeError(ErrorCode::Invalid, field,
                   fmt::format("must be one of {}, got '{}'", queueing::policyKindNames(), policy));
}

// The flags shared by both commands, checked, as the inputs of a replay.
Result<simulator::ReplayInputs> inputsOf(const ReplayFlags& flags) {
  if (flags.topology != "none" && flags.topology != "preferred" && flags.topology != "required") {
    return makeError(ErrorCode::Invalid, "--topology",
                     fmt::format("must be none, preferred or required, got '{}'", flags.topology));
  }
  if (flags.checkpoint_interval_s < 0) {
    return makeError(ErrorCode::Invalid, "--checkpoint-interval", "must be >= 0");
  }
  if (flags.from_s && flags.to_s && *flags.from_s >= *flags.to_s) {
    return makeError(ErrorCode::Invalid, "--to",
                     fmt::format("must be after --from ({}), got {}", *flags.from_s, *flags.to_s));
  }
  simulator::ReplayInputs in;
  in.trace = flags.trace;
  in.cluster = flags.cluster;
  in.from_s = flags.from_s;
  in.to_s = flags.to_s;
  in.checkpoint_interval_s = flags.checkpoint_interval_s;
  in.elastic = flags.elastic;
  in.topology = flags.topology;
  return in;
}

int runSim(const SimFlags& flags) {
  if (auto s = checkPolicy(flags.policy, "--policy"); !s) return fail(s.error());
  auto inputs = inputsOf(flags);
  if (!inputs) return fail(inputs.error());
  auto scale = simulator::parseClusterScale(flags.scale, "--scale");
  if (!scale) return fail(scale.error());
  inputs->policy = flags.policy;
  inputs->scale = scale->str();

  simulator::SimulationOptions options;
  options.policy = *queueing::policyKindNamed(flags.policy);
  options.gangs.topology = flags.topology == "none"       ? queueing::TopologyMode::None
                           : flags.topology == "required" ? queueing::TopologyMode::Required
                                                          : queueing::TopologyMode::Preferred;
  options.checkpoint_interval_s = flags.checkpoint_interval_s;
  options.gangs.elastic = flags.elastic;
  options.window_begin_s = flags.from_s;
  options.window_end_s = flags.to_s;
  options.progress = flags.quiet ? nullptr : stderr;

  auto file = simulator::readClusterSpec(flags.cluster);
  if (!file) return fail(file.error());
  auto cluster = simulator::scaleCluster(*file, *scale, "--scale");
  if (!cluster) return fail(cluster.error());
  auto trace = simulator::readTrace(flags.trace);
  if (!trace) return fail(trace.error());
  auto jobs =
      simulator::selectWindow(*trace, flags.from_s.value_or(std::numeric_limits<int64_t>::min()),
                              flags.to_s.value_or(std::numeric_limits<int64_t>::max()));

  auto result = simulator::simulate(*cluster, jobs, options);
  if (!result) return fail(result.error());
  result->summary["run"] = inputs->toJson();
  if (auto s = simulator::writeReport(flags.out, result->summary, result->jobs); !s) {
    return fail(s.error());
  }
  const auto& sum = result->summary;
  fmt::print(
      "policy {} at scale {}: {} jobs ({} skipped), avg JCT {:.0f} s, p99 JCT {:.0f} s, avg queue "
      "delay {:.0f} s, utilization {:.3f}, jobs >= 32 GPUs avg JCT {:.0f} s, idle while waiting "
      "{:.0f} GPU-h, guarantee deficit {:.0f} GPU-h, {} preemptions, makespan {:.0f} s ({} "
      "cycles, {:.1f} s wall)\n",
      sum["policy"].get<std::string>(), scale->str(), sum["jobs"].get<int64_t>(),
      sum["skipped_jobs"].get<int64_t>(), sum["avg_jct_s"].get<double>(),
      sum["p99_jct_s"].get<double>(), sum["avg_queue_delay_s"].get<double>(),
      sum["gpu_utilization"].get<double>(), sum["big"]["avg_jct_s"].get<double>(),
      sum["idle_while_waiting"]["gpu_hours"].get<double>(),
      sum["guarantee_deficit_gpu_hours"].get<double>(), sum["preemptions"].get<int64_t>(),
      sum["makespan_s"].get<double>(), sum["scheduling_cycles"].get<int64_t>(),
      sum["wall_seconds"].get<double>());
  fmt::print("wrote {}/summary.json and {}/jobs.csv\n", flags.out, flags.out);
  return 0;
}

int runSweep(const SweepFlags& flags) {
  auto inputs = inputsOf(flags);
  if (!inputs) return fail(inputs.error());
  simulator::SweepPlan plan;
  plan.program = "/proc/self/exe";
  plan.base = *inputs;
  for (const std::string& text : splitList(flags.scales)) {
    auto scale = simulator::parseClusterScale(text, "--scales");
    if (!scale) return fail(scale.error());
    plan.scales.push_back(*scale);
  }
  plan.policies = splitList(flags.policies);
  for (const std::string& policy : plan.policies)
    if (auto s = checkPolicy(policy, "--policies"); !s) return fail(s.error());
  if (plan.scales.empty()) return fail(makeError(ErrorCode::Invalid, "--scales", "is empty"));
  if (plan.policies.empty()) return fail(makeError(ErrorCode::Invalid, "--policies", "is empty"));
  if (flags.parallel < 1) return fail(makeError(ErrorCode::Invalid, "--parallel", "must be >= 1"));
  // Fail before any replay starts on a cluster file the scales cannot apply to.
  auto file = simulator::readClusterSpec(flags.cluster);
  if (!file) return fail(file.error());
  for (const auto& scale : plan.scales)
    if (auto c = simulator::scaleCluster(*file, scale, "--scales"); !c) return fail(c.error());
  plan.out = flags.out;
  plan.parallel = flags.parallel;
  plan.reuse = flags.reuse;
  auto outcome = simulator::runSweep(plan);
  if (!outcome) return fail(outcome.error());
  fmt::print("{}\n{} replays run, {} reused; wrote {}/sweep.md, {}/sweep.csv and {}/sweep.svg\n",
             outcome->markdown, outcome->replays_run, outcome->replays_reused, flags.out, flags.out,
             flags.out);
  return 0;
}

// `required`: CLI11 requires --trace and --cluster; otherwise the callback checks them.
void addReplayOptions(CLI::App* cmd, ReplayFlags& flags, bool required) {
  cmd->add_option("--trace", flags.trace,
                  "Trace CSV: job_id,submit_time_s,num_gpus,duration_s,virtual_cluster; or "
                  "pods with gpu_milli,cpu_milli,memory_mib,qos_class (docs/simulator.md)")
      ->required(required);
  cmd->add_option("--cluster", flags.cluster,
                  "Cluster YAML, or a node list CSV: sn,cpu_milli,memory_mib,gpu,model "
                  "(docs/simulator.md)")
      ->required(required);
  cmd->add_option("--from", flags.from_s, "Replay only jobs submitted at or after S seconds");
  cmd->add_option("--to", flags.to_s, "Replay only jobs submitted before S seconds");
  cmd->add_option("--checkpoint-interval", flags.checkpoint_interval_s,
                  "Seconds between checkpoints of a running job; 0: none")
      ->capture_default_str();
  cmd->add_flag("--elastic", flags.elastic,
                "Let multi-pod jobs run with fewer pods (at proportionally lower speed)");
  cmd->add_option("--topology", flags.topology,
                  "Rack constraint on multi-pod jobs: none, preferred or required")
      ->capture_default_str();
}

}  // namespace

void addSimCommand(CLI::App& app) {
  auto flags = std::make_shared<SimFlags>();
  auto* cmd = app.add_subcommand(
      "sim", "Replay a job trace through the scheduling engine on simulated time");
  auto sweep_flags = std::make_shared<SweepFlags>();
  auto* sweep = cmd->add_subcommand(
      "sweep", "Replay a trace at several cluster scales under several policies; tabulate, plot");
  cmd->require_subcommand(0, 1);

  // `troupe sim` itself: its options are checked in its callback rather than marked
  // required, since `troupe sim sweep` takes its own.
  addReplayOptions(cmd, *flags, false);
  cmd->add_option("--policy", flags->policy, "One of " + queueing::policyKindNames())
      ->capture_default_str();
  cmd->add_option("--scale", flags->scale,
                  "Multiply node counts, guarantees and limits by F (1/6, 0.25)")
      ->capture_default_str();
  cmd->add_option("--out", flags->out, "Directory for summary.json and jobs.csv");
  cmd->add_flag("--quiet", flags->quiet, "No progress bar");
  cmd->callback([flags, sweep] {
    if (sweep->parsed()) return;
    for (const auto& [name, value] :
         {std::pair{"--trace", &flags->trace}, std::pair{"--cluster", &flags->cluster},
          std::pair{"--out", &flags->out}}) {
      if (value->empty())
        throw CommandExit{fail(makeError(ErrorCode::Invalid, name, "is required"))};
    }
    throw CommandExit{runSim(*flags)};
  });

  addReplayOptions(sweep, *sweep_flags, true);
  sweep
      ->add_option("--out", sweep_flags->out,
                   "Directory for runs/<policy>-<scale>/ and sweep.md, sweep.csv, sweep.svg")
      ->required();
  sweep->add_option("--scales", sweep_flags->scales, "Comma-separated cluster scales: 1,1/4,1/6")
      ->capture_default_str();
  sweep->add_option("--policies", sweep_flags->policies, "Comma-separated policies")
      ->capture_default_str();
  sweep->add_option("--parallel", sweep_flags->parallel, "Replays run at once")
      ->capture_default_str();
  sweep->add_flag("--reuse", sweep_flags->reuse,
                  "Keep a replay whose summary.json shows the same inputs instead of running it");
  sweep->callback([sweep_flags] { throw CommandExit{runSweep(*sweep_flags)}; });
}

}  // namespace troupe::cmd
