#include <CLI/CLI.hpp>

#include "operator/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"troupe: gang scheduling, fair-share queues and preemption for AI training"};
  app.require_subcommand(1);
  troupe::cli::addVersionCommand(app);
  troupe::cli::addValidateCommand(app);
  troupe::cli::addSimCommand(app);
  troupe::cli::addBenchCommand(app);
  troupe::cli::addServeCommand(app);
  troupe::cli::addOperatorCommand(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const troupe::cli::CommandExit& exit) {
    return exit.code;
  }
  return 0;
}
