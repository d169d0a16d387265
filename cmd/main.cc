#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <string_view>

#include "cli/kubectl_plugin.h"
#include "cmd/commands.h"

namespace {

// Raises the open-file limit to its hard limit, as the Go runtime does for kube-apiserver:
// `troupe serve` holds both ends of the in-process operator's connections (up to 160), the
// kubelets', and one per client and watcher, past the common soft limit of 1,024.
void raiseOpenFileLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= limit.rlim_max) return;
  limit.rlim_cur = limit.rlim_max;
  (void)setrlimit(RLIMIT_NOFILE, &limit);  // best effort: the old limit still works
}

}  // namespace

int main(int argc, char** argv) {
  // kubectl runs `kubectl troupe ...` as kubectl-troupe, a link to this binary.
  std::string_view invoked = argc > 0 ? argv[0] : "";
  if (auto slash = invoked.rfind('/'); slash != std::string_view::npos)
    invoked.remove_prefix(slash + 1);
  if (invoked == troupe::cli::kPluginName) return troupe::cli::runKubectlPlugin(argc, argv);
  raiseOpenFileLimit();
  CLI::App app{"troupe: gang scheduling, fair-share queues and preemption for AI training"};
  app.require_subcommand(1);
  troupe::cmd::addVersionCommand(app);
  troupe::cmd::addValidateCommand(app);
  troupe::cmd::addSimCommand(app);
  troupe::cmd::addBenchCommand(app);
  troupe::cmd::addServeCommand(app);
  troupe::cmd::addOperatorCommand(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const troupe::cmd::CommandExit& exit) {
    return exit.code;
  }
  return 0;
}
