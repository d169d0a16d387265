#pragma once

#include <string>

#include "common/result.h"
#include "kube/client_config.h"

// The configuration of a pod's service account: the API server from
// KUBERNETES_SERVICE_HOST/PORT, the projected token (re-read as it rotates), its CA and
// namespace from the service-account directory.
namespace troupe::kube {

struct InClusterEnvironment {
  std::string service_host;  // $KUBERNETES_SERVICE_HOST
  std::string service_port;  // $KUBERNETES_SERVICE_PORT
  std::string directory = "/var/run/secrets/kubernetes.io/serviceaccount";
};

InClusterEnvironment inClusterEnvironmentFromProcess();

// NotFound when not in a cluster (the variables are unset); Invalid naming the file or
// variable that is wrong otherwise.
Result<ClientConfig> loadInClusterConfig(const InClusterEnvironment& env);

}  // namespace troupe::kube
