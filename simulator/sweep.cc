#include "simulator/sweep.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "simulator/child_processes.h"
#include "simulator/sweep_plot.h"
#include "simulator/sweep_table.h"

namespace troupe::simulator {
namespace {

Status writeFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) return makeError(ErrorCode::Internal, "--out", fmt::format("cannot write '{}'", path));
  return {};
}

Result<nlohmann::json> readSummary(const std::string& dir) {
  const std::string path = dir + "/summary.json";
  std::ifstream in(path, std::ios::binary);
  if (!in) return makeError(ErrorCode::NotFound, "--out", fmt::format("no '{}'", path));
  std::ostringstream text;
  text << in.rdbuf();
  auto json = nlohmann::json::parse(text.str(), nullptr, false);
  if (json.is_discarded() || !json.is_object()) {
    return makeError(ErrorCode::Invalid, "--out", fmt::format("'{}' is not a JSON object", path));
  }
  return json;
}

struct PlannedRun {
  ClusterScale scale;
  std::string policy;
  ReplayInputs inputs;
  std::string dir;
};

}  // namespace

std::string sweepRunDir(const std::string& out, const std::string& policy, ClusterScale scale) {
  std::string label = scale.str();
  for (char& c : label)
    if (c == '/') c = '_';
  return fmt::format("{}/runs/{}-{}", out, policy, label);
}

Result<SweepOutcome> runSweep(const SweepPlan& plan) {
  std::vector<PlannedRun> runs;
  for (const ClusterScale& scale : plan.scales) {
    for (const std::string& policy : plan.policies) {
      PlannedRun run{scale, policy, plan.base, sweepRunDir(plan.out, policy, scale)};
      run.inputs.scale = scale.str();
      run.inputs.policy = policy;
      runs.push_back(std::move(run));
    }
  }
  SweepOutcome outcome;
  std::vector<ChildCommand> commands;
  std::vector<const PlannedRun*> started;
  for (const PlannedRun& run : runs) {
    std::error_code ec;
    std::filesystem::create_directories(run.dir, ec);
    if (ec) {
      return makeError(ErrorCode::Internal, "--out",
                       fmt::format("cannot create directory '{}': {}", run.dir, ec.message()));
    }
    if (plan.reuse) {
      auto done = readSummary(run.dir);
      if (done && done->contains("run") && (*done)["run"] == run.inputs.toJson()) {
        ++outcome.replays_reused;
        continue;
      }
    }
    // A summary left from other inputs must not pass for this run's if it fails.
    std::filesystem::remove(run.dir + "/summary.json", ec);
    ChildCommand command;
    command.argv = {plan.program, "sim"};
    for (auto& arg : run.inputs.toArgs(run.dir)) command.argv.push_back(std::move(arg));
    command.log_path = run.dir + "/log.txt";
    commands.push_back(std::move(command));
    started.push_back(&run);
  }
  auto statuses = runChildren(commands, plan.parallel);
  if (!statuses) return statuses.error();
  for (size_t i = 0; i < statuses->size(); ++i) {
    if ((*statuses)[i] != 0) {
      return makeError(ErrorCode::Internal, "",
                       fmt::format("the replay of policy {} at scale {} exited with {}; see {}",
                                   started[i]->policy, started[i]->scale.str(), (*statuses)[i],
                                   commands[i].log_path));
    }
  }
  outcome.replays_run = static_cast<int>(commands.size());

  std::vector<SweepRun> results;
  for (const PlannedRun& run : runs) {
    auto summary = readSummary(run.dir);
    if (!summary) return summary.error();
    results.push_back(
        SweepRun{run.scale.str(), run.scale.value(), run.policy, std::move(*summary)});
  }
  auto markdown = sweepMarkdown(results, plan.policies);
  if (!markdown) return markdown.error();
  auto csv = sweepCsv(results, plan.policies);
  if (!csv) return csv.error();
  if (auto s = writeFile(plan.out + "/sweep.md", *markdown); !s) return s.error();
  if (auto s = writeFile(plan.out + "/sweep.csv", *csv); !s) return s.error();
  if (auto s = writeFile(plan.out + "/sweep.svg", sweepSvg(results, plan.policies)); !s)
    return s.error();
  outcome.markdown = std::move(*markdown);
  return outcome;
}

}  // namespace troupe::simulator
