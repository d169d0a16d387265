#include "test/support/sim_serve.h"

#include <fstream>

namespace troupe::testing {

SimServe::SimServe(std::string cluster_yaml, double sim_speed) {
  const std::string cluster = workDir() + "/cluster.yaml";
  std::ofstream(cluster) << cluster_yaml;
  addArguments({"--cluster", cluster, "--sim-speed", std::to_string(sim_speed)});
}

CommandResult kubectl(const SimServe& serve, const std::string& args) {
  return runCommand("timeout 60 kubectl --kubeconfig " + serve.kubeconfig() + " --cache-dir " +
                    serve.dir() + "/kube-cache " + args);
}

}  // namespace troupe::testing
