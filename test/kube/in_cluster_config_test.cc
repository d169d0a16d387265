#include <catch2/catch.hpp>

#include "kube/config_loader.h"
#include "kube/in_cluster_config.h"
#include "test/support/temp_dir.h"

using namespace troupe;
using namespace troupe::kube;
using troupe::testing::TempDir;

namespace {

InClusterEnvironment serviceAccount(const TempDir& dir) {
  dir.write("sa/token", "sa-token-1\n");
  dir.write("sa/ca.crt", "CLUSTER CA");
  dir.write("sa/namespace", "troupe-system\n");
  InClusterEnvironment env;
  env.service_host = "10.96.0.1";
  env.service_port = "443";
  env.directory = dir.file("sa");
  return env;
}

}  // namespace

TEST_CASE("in-cluster config reads the service account's token file, CA and namespace",
          "[kube][in-cluster]") {
  TempDir dir;
  auto config = loadInClusterConfig(serviceAccount(dir));
  REQUIRE(config.ok());
  CHECK(config->server == "https://10.96.0.1:443");
  CHECK(config->token_file == dir.file("sa/token"));
  CHECK(config->token.empty());  // read (and re-read) from the file by the client
  CHECK(config->certificate_authority_pem == "CLUSTER CA");
  CHECK(config->ns == "troupe-system");
}

TEST_CASE("in-cluster config brackets an IPv6 service host", "[kube][in-cluster]") {
  TempDir dir;
  auto env = serviceAccount(dir);
  env.service_host = "fd00::1";
  auto config = loadInClusterConfig(env);
  REQUIRE(config.ok());
  CHECK(config->server == "https://[fd00::1]:443");
}

TEST_CASE("in-cluster config errors say which variable or file is wrong", "[kube][in-cluster]") {
  TempDir dir;
  auto env = serviceAccount(dir);

  auto outside = env;
  outside.service_host.clear();
  auto not_in_cluster = loadInClusterConfig(outside);
  REQUIRE_FALSE(not_in_cluster.ok());
  CHECK(not_in_cluster.error().code == ErrorCode::NotFound);
  CHECK(not_in_cluster.error().field_path == "KUBERNETES_SERVICE_HOST");

  auto bad_port = env;
  bad_port.service_port = "https";
  auto port = loadInClusterConfig(bad_port);
  REQUIRE_FALSE(port.ok());
  CHECK(port.error().field_path == "KUBERNETES_SERVICE_PORT");

  auto no_token = env;
  no_token.directory = dir.file("elsewhere");
  auto token = loadInClusterConfig(no_token);
  REQUIRE_FALSE(token.ok());
  CHECK(token.error().field_path == dir.file("elsewhere/token"));
}

TEST_CASE("configuration sources are tried as --kubeconfig, $KUBECONFIG, in-cluster, ~/.kube",
          "[kube][config-loader]") {
  TempDir dir;
  const auto in_cluster = serviceAccount(dir);
  const std::string kubeconfig = dir.write("kc", R"(
current-context: c
clusters: [{name: k, cluster: {server: "https://from-kubeconfig:6443"}}]
contexts: [{name: c, context: {cluster: k}}]
)");
  dir.write("home/.kube/config", R"(
current-context: c
clusters: [{name: k, cluster: {server: "https://from-home:6443"}}]
contexts: [{name: c, context: {cluster: k}}]
)");

  KubeconfigOptions explicit_flag;
  explicit_flag.explicit_path = kubeconfig;
  explicit_flag.home = dir.file("home");
  CHECK(loadClientConfig(explicit_flag, in_cluster)->server == "https://from-kubeconfig:6443");

  KubeconfigOptions env_var;
  env_var.kubeconfig_env = kubeconfig;
  env_var.home = dir.file("home");
  CHECK(loadClientConfig(env_var, in_cluster)->server == "https://from-kubeconfig:6443");

  KubeconfigOptions nothing;
  nothing.home = dir.file("home");
  CHECK(loadClientConfig(nothing, in_cluster)->server == "https://10.96.0.1:443");
  CHECK(loadClientConfig(nothing, InClusterEnvironment{})->server == "https://from-home:6443");
}
