#pragma once

#include <CLI/CLI.hpp>

// Each subcommand of `troupe` lives in its own cmd_<name>.cc and registers itself on
// the root application here (`troupe bench server` and `troupe bench scheduler` on
// `troupe bench`, from cmd_bench_api.cc). This folder is the one that sees every layer:
// it wires the components together. A callback returns the process exit code through
// CommandExit so that main() stays the only place that exits.
namespace troupe::cmd {

struct CommandExit {
  int code = 0;
};

void addVersionCommand(CLI::App& app);
void addValidateCommand(CLI::App& app);
void addSimCommand(CLI::App& app);
void addBenchCommand(CLI::App& app);
void addApiBenchCommands(CLI::App& bench);
void addServeCommand(CLI::App& app);
void addOperatorCommand(CLI::App& app);

}  // namespace troupe::cmd
