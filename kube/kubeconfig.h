#pragma once

#include <string>
#include <vector>

#include "common/result.h"
#include "kube/client_config.h"

// Reading kubeconfig files the way kubectl does.
//
// Which files: `explicit_path` alone when given (it must exist); otherwise every file of
// `kubeconfig_env` ($KUBECONFIG, colon-separated; missing files are skipped) merged so that
// the first file to set a value wins (current-context, and each cluster, user and context by
// name); otherwise `<home>/.kube/config`. Which context: `context` when given, else the
// merged current-context. Relative file paths (certificate-authority, client-certificate,
// client-key, tokenFile) are resolved against the directory of the file that named them.
namespace troupe::kube {

struct KubeconfigOptions {
  std::string explicit_path;   // --kubeconfig
  std::string context;         // --context
  std::string kubeconfig_env;  // the value of $KUBECONFIG
  std::string home;            // the value of $HOME
};

// Fills kubeconfig_env and home from the process environment.
KubeconfigOptions kubeconfigOptionsFromEnvironment(std::string explicit_path = "",
                                                   std::string context = "");

// The files `options` would read, in precedence order (existing or not).
std::vector<std::string> kubeconfigPaths(const KubeconfigOptions& options);

// Loads the selected context. Errors name the file and the field that is wrong, e.g.
// field_path "users[alice].user.client-key-data" with "not valid base64".
Result<ClientConfig> loadKubeconfig(const KubeconfigOptions& options);

}  // namespace troupe::kube
