#include <catch2/catch.hpp>

#include "kube/config_loader.h"
#include "kube/kubeconfig.h"
#include "test/support/temp_dir.h"

using namespace troupe;
using namespace troupe::kube;
using troupe::testing::TempDir;

namespace {

// base64 of "CA-PEM-BYTES", "CERT-PEM", "KEY-PEM".
constexpr const char* kCaData = "Q0EtUEVNLUJZVEVT";
constexpr const char* kCertData = "Q0VSVC1QRU0=";
constexpr const char* kKeyData = "S0VZLVBFTQ==";

std::string kindConfig() {
  return R"(apiVersion: v1
kind: Config
current-context: kind-troupe
clusters:
- name: kind
  cluster:
    server: https://127.0.0.1:6443
    certificate-authority-data: Q0EtUEVNLUJZVEVT
    tls-server-name: kubernetes.default
contexts:
- name: kind-troupe
  context:
    cluster: kind
    user: admin
    namespace: training
- name: other
  context:
    cluster: kind
    user: alice
users:
- name: admin
  user:
    token: admin-token
- name: alice
  user:
    client-certificate-data: Q0VSVC1QRU0=
    client-key-data: S0VZLVBFTQ==
)";
}

KubeconfigOptions explicitFile(const std::string& path, const std::string& context = "") {
  KubeconfigOptions options;
  options.explicit_path = path;
  options.context = context;
  return options;
}

}  // namespace

TEST_CASE("a kubeconfig's current context gives server, CA, token and namespace",
          "[kube][kubeconfig]") {
  TempDir dir;
  auto config = loadKubeconfig(explicitFile(dir.write("config", kindConfig())));
  REQUIRE(config.ok());
  CHECK(config->server == "https://127.0.0.1:6443");
  CHECK(config->certificate_authority_pem == "CA-PEM-BYTES");
  CHECK(config->tls_server_name == "kubernetes.default");
  CHECK(config->token == "admin-token");
  CHECK(config->ns == "training");
  CHECK_FALSE(config->insecure_skip_tls_verify);
  CHECK(config->source.find("context kind-troupe") != std::string::npos);
}

TEST_CASE("a named context overrides current-context, no namespace means default",
          "[kube][kubeconfig]") {
  TempDir dir;
  auto config = loadKubeconfig(explicitFile(dir.write("config", kindConfig()), "other"));
  REQUIRE(config.ok());
  CHECK(config->token.empty());
  CHECK(config->client_certificate_pem == "CERT-PEM");
  CHECK(config->client_key_pem == "KEY-PEM");
  CHECK(config->ns == "default");
}

TEST_CASE("relative file paths resolve against the kubeconfig's own folder", "[kube][kubeconfig]") {
  TempDir dir;
  dir.write("conf/certs/ca.crt", "CA FROM FILE");
  dir.write("conf/certs/me.crt", "CERT FROM FILE");
  dir.write("conf/certs/me.key", "KEY FROM FILE");
  dir.write("conf/token", "file-token\n");
  const std::string path = dir.write("conf/config", R"(
current-context: c
clusters:
- name: k
  cluster: {server: "https://10.0.0.1:443", certificate-authority: certs/ca.crt}
contexts:
- name: c
  context: {cluster: k, user: u}
users:
- name: u
  user: {client-certificate: certs/me.crt, client-key: certs/me.key, tokenFile: token}
)");
  auto config = loadKubeconfig(explicitFile(path));
  REQUIRE(config.ok());
  CHECK(config->certificate_authority_pem == "CA FROM FILE");
  CHECK(config->client_certificate_pem == "CERT FROM FILE");
  CHECK(config->client_key_pem == "KEY FROM FILE");
  CHECK(config->token_file == dir.file("conf/token"));
}

TEST_CASE("$KUBECONFIG merges its files: the first to set a value wins, missing files are skipped",
          "[kube][kubeconfig]") {
  TempDir dir;
  const std::string first = dir.write("first", R"(
current-context: from-first
clusters:
- name: shared
  cluster: {server: "https://first.example:6443", insecure-skip-tls-verify: true}
contexts:
- name: from-first
  context: {cluster: shared, user: second-user}
)");
  const std::string second = dir.write("second", R"(
current-context: from-second
clusters:
- name: shared
  cluster: {server: "https://second.example:6443"}
users:
- name: second-user
  user: {token: t2}
)");
  KubeconfigOptions options;
  options.kubeconfig_env = dir.file("missing") + ":" + first + ":" + second;
  options.home = dir.path();
  auto config = loadKubeconfig(options);
  REQUIRE(config.ok());
  // current-context and cluster "shared" come from `first`; the user only `second` defines.
  CHECK(config->server == "https://first.example:6443");
  CHECK(config->insecure_skip_tls_verify);
  CHECK(config->token == "t2");
}

TEST_CASE("without --kubeconfig or $KUBECONFIG, ~/.kube/config is read", "[kube][kubeconfig]") {
  TempDir dir;
  dir.write(".kube/config", kindConfig());
  KubeconfigOptions options;
  options.home = dir.path();
  CHECK(kubeconfigPaths(options) == std::vector<std::string>{dir.file(".kube/config")});
  auto config = loadKubeconfig(options);
  REQUIRE(config.ok());
  CHECK(config->token == "admin-token");
}

TEST_CASE("kubeconfig errors name the field that is wrong", "[kube][kubeconfig]") {
  struct Case {
    std::string name;
    std::string yaml;
    std::string context;
    std::string want_field;
    std::string want_message;
  };
  const std::string head =
      "current-context: c\ncontexts:\n- name: c\n  context: {cluster: k, user: u}\n";
  std::vector<Case> cases = {
      {"CA data that is not base64",
       head +
           "clusters:\n- name: k\n  cluster: {server: 'https://a:1', certificate-authority-data: "
           "'not*base64'}\nusers:\n- name: u\n  user: {token: t}\n",
       "", "clusters[k].cluster.certificate-authority-data", "not valid base64"},
      {"a cluster without a server",
       head + "clusters:\n- name: k\n  cluster: {}\nusers:\n- name: u\n  user: {token: t}\n", "",
       "clusters[k].cluster.server", "Required value"},
      {"a server without a scheme",
       head +
           "clusters:\n- name: k\n  cluster: {server: 'a:6443'}\nusers:\n- name: u\n  user: {}\n",
       "", "clusters[k].cluster.server", "must start with https://"},
      {"a context naming an undefined user",
       head + "clusters:\n- name: k\n  cluster: {server: 'https://a:1'}\n", "",
       "contexts[c].context.user", "user \"u\" is not defined"},
      {"a context naming an undefined cluster", head + "users:\n- name: u\n  user: {}\n", "",
       "contexts[c].context.cluster", "cluster \"k\" is not defined"},
      {"an exec credential plugin",
       head + "clusters:\n- name: k\n  cluster: {server: 'https://a:1'}\nusers:\n- name: u\n  "
              "user: {exec: {command: aws}}\n",
       "", "users[u].user.exec", "not supported"},
      {"insecure together with a CA",
       head +
           "clusters:\n- name: k\n  cluster: {server: 'https://a:1', insecure-skip-tls-verify: "
           "true, certificate-authority-data: " +
           kCaData + "}\nusers:\n- name: u\n  user: {}\n",
       "", "clusters[k].cluster.insecure-skip-tls-verify", "cannot be true"},
      {"insecure that is not a boolean",
       head + "clusters:\n- name: k\n  cluster: {server: 'https://a:1', insecure-skip-tls-verify: "
              "maybe}\nusers:\n- name: u\n  user: {}\n",
       "", "clusters[k].cluster.insecure-skip-tls-verify", "must be true or false"},
      {"a client certificate without its key",
       head +
           "clusters:\n- name: k\n  cluster: {server: 'https://a:1'}\nusers:\n- name: u\n  "
           "user: {client-certificate-data: " +
           kCertData + "}\n",
       "", "users[u].user.client-key", "must be given together"},
      {"a certificate file that does not exist",
       head + "clusters:\n- name: k\n  cluster: {server: 'https://a:1', certificate-authority: "
              "/nonexistent/ca.crt}\nusers:\n- name: u\n  user: {}\n",
       "", "clusters[k].cluster.certificate-authority", "cannot read file"},
      {"a context that does not exist", head, "nope", "--context", "\"nope\" is not defined"},
      {"no current-context at all", "clusters: []\n", "", "current-context", "no current-context"},
      {"clusters that is not a list", "current-context: c\nclusters: {k: 1}\n", "", "clusters",
       "must be a list"},
      {"a list entry without a name", "clusters:\n- cluster: {server: 'https://a:1'}\n", "",
       "clusters[0].name", "Required value"},
      {"a file that is not YAML", "current-context: [unclosed\n", "", "", "not valid YAML"},
  };
  (void)kKeyData;
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      TempDir dir;
      auto config = loadKubeconfig(explicitFile(dir.write("config", tc.yaml), tc.context));
      REQUIRE_FALSE(config.ok());
      CHECK(config.error().field_path == tc.want_field);
      CHECK_THAT(config.error().message, Catch::Contains(tc.want_message));
    }
  }
}

TEST_CASE("a --kubeconfig that does not exist is an error, a $KUBECONFIG entry is skipped",
          "[kube][kubeconfig]") {
  TempDir dir;
  auto explicit_missing = loadKubeconfig(explicitFile(dir.file("nope")));
  REQUIRE_FALSE(explicit_missing.ok());
  CHECK(explicit_missing.error().field_path == "--kubeconfig");

  KubeconfigOptions env_missing;
  env_missing.kubeconfig_env = dir.file("nope") + ":" + dir.file("nope2");
  auto none = loadKubeconfig(env_missing);
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().code == ErrorCode::NotFound);
  CHECK_THAT(none.error().message, Catch::Contains(dir.file("nope2")));
}
