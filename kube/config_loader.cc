#include "kube/config_loader.h"

namespace troupe::kube {

Result<ClientConfig> loadClientConfig(const KubeconfigOptions& kubeconfig,
                                      const InClusterEnvironment& in_cluster) {
  if (!kubeconfig.explicit_path.empty() || !kubeconfig.kubeconfig_env.empty()) {
    return loadKubeconfig(kubeconfig);
  }
  if (!in_cluster.service_host.empty()) return loadInClusterConfig(in_cluster);
  return loadKubeconfig(kubeconfig);
}

}  // namespace troupe::kube
