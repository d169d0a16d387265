#include "kube/in_cluster_config.h"

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace troupe::kube {
namespace {

Result<std::string> readWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return makeError(ErrorCode::Invalid, path, "cannot read the service-account file");
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace

InClusterEnvironment inClusterEnvironmentFromProcess() {
  InClusterEnvironment env;
  if (const char* host = std::getenv("KUBERNETES_SERVICE_HOST")) env.service_host = host;
  if (const char* port = std::getenv("KUBERNETES_SERVICE_PORT")) env.service_port = port;
  return env;
}

Result<ClientConfig> loadInClusterConfig(const InClusterEnvironment& env) {
  if (env.service_host.empty() || env.service_port.empty()) {
    return makeError(ErrorCode::NotFound, "KUBERNETES_SERVICE_HOST",
                     "not running in a cluster: KUBERNETES_SERVICE_HOST and "
                     "KUBERNETES_SERVICE_PORT must both be set");
  }
  for (char c : env.service_port) {
    if (c < '0' || c > '9') {
      return makeError(ErrorCode::Invalid, "KUBERNETES_SERVICE_PORT",
                       fmt::format("\"{}\" is not a port number", env.service_port));
    }
  }
  ClientConfig config;
  const bool ipv6 = env.service_host.find(':') != std::string::npos;
  config.server = fmt::format("https://{}{}{}:{}", ipv6 ? "[" : "", env.service_host,
                              ipv6 ? "]" : "", env.service_port);
  config.token_file = env.directory + "/token";
  if (auto token = readWholeFile(config.token_file); !token) return token.error();
  auto ca = readWholeFile(env.directory + "/ca.crt");
  if (!ca) return ca.error();
  config.certificate_authority_pem = *ca;
  // The namespace file is optional; without it the default namespace applies.
  if (auto ns = readWholeFile(env.directory + "/namespace"); ns && !trim(*ns).empty()) {
    config.ns = trim(*ns);
  }
  config.source = "in-cluster service account " + env.directory;
  return config;
}

}  // namespace troupe::kube
