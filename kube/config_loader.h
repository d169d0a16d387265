#pragma once

#include "common/result.h"
#include "kube/client_config.h"
#include "kube/in_cluster_config.h"
#include "kube/kubeconfig.h"

namespace troupe::kube {

// The configuration the operator uses, in this order (as controller-runtime does):
// 1. --kubeconfig (explicit_path), 2. $KUBECONFIG, 3. the in-cluster service account,
// 4. ~/.kube/config. Errors in the first source found are returned, never skipped over.
Result<ClientConfig> loadClientConfig(const KubeconfigOptions& kubeconfig,
                                      const InClusterEnvironment& in_cluster);

}  // namespace troupe::kube
