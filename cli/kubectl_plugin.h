#pragma once

// `kubectl troupe`: kubectl runs an executable named kubectl-troupe on the PATH for it
// (the troupe binary under that name: `cmake --install` puts the link beside it). Reads the
// API only, with the kubeconfig kubectl would use, so it works against `troupe serve` and
// any cluster Troupe runs in.
namespace troupe::cli {

// The name the troupe binary answers to as the plugin.
inline constexpr const char* kPluginName = "kubectl-troupe";

int runKubectlPlugin(int argc, char** argv);

}  // namespace troupe::cli
