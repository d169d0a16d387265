#include <fmt/format.h>

#include "cmd/commands.h"

namespace troupe::cmd {

void addVersionCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand("version", "Print the version of troupe");
  cmd->callback([] {
    fmt::print("troupe {} (API troupe.dev/v1alpha1)\n", TROUPE_VERSION);
    throw CommandExit{0};
  });
}

}  // namespace troupe::cmd
