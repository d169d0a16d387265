#pragma once

#include <string>

#include "common/result.h"

// Writes the kubeconfig that `kubectl --kubeconfig DIR/kubeconfig` uses as is: the
// server's address, its certificate as the CA, and the admin bearer token.
namespace troupe::apiserver {

std::string kubeconfigText(const std::string& server_url, const std::string& ca_pem,
                           const std::string& token);
Status writeKubeconfig(const std::string& path, const std::string& server_url,
                       const std::string& ca_pem, const std::string& token);

}  // namespace troupe::apiserver
