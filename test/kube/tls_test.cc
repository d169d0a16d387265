#include <catch2/catch.hpp>

#include "kube/kubeconfig.h"
#include "kube/rest_kube_client.h"
#include "test/kube/support/client_for.h"
#include "test/kube/support/scripted_server.h"
#include "test/kube/support/test_certificate.h"
#include "test/support/temp_dir.h"

using namespace troupe;
using namespace troupe::kube;
using namespace troupe::kube::testing;
using troupe::testing::TempDir;

namespace {

ScriptedServer::Options tlsServer(const TestCertificate& cert, bool ask_client_cert = false) {
  ScriptedServer::Options options;
  options.tls = true;
  options.cert_pem = cert.cert_pem;
  options.key_pem = cert.key_pem;
  options.request_client_certificate = ask_client_cert;
  return options;
}

}  // namespace

TEST_CASE("TLS verification passes with the server's CA and fails against an unknown one",
          "[kube][tls]") {
  const TestCertificate serving =
      makeSelfSignedCertificate("apiserver", {"localhost"}, {"127.0.0.1"});
  const TestCertificate stranger =
      makeSelfSignedCertificate("stranger", {"localhost"}, {"127.0.0.1"});
  ScriptedServer server(tlsServer(serving));
  server.setHandler([](const RecordedRequest&) { return Reply::fixture(200, "tj-get.json"); });
  CHECK(server.url().rfind("https://", 0) == 0);

  auto config = configFor(server);
  config.certificate_authority_pem = serving.cert_pem;
  auto trusted = clientFor(config)->get(kLlamaA);
  REQUIRE(trusted.ok());
  CHECK((*trusted)["metadata"]["name"] == "llama-a");

  config.certificate_authority_pem = stranger.cert_pem;
  auto untrusted = clientFor(config)->get(kLlamaA);
  REQUIRE_FALSE(untrusted.ok());
  CHECK(untrusted.error().reason == "TLSHandshakeFailed");
  CHECK_THAT(untrusted.error().message, Catch::Contains("certificate verify failed"));
  CHECK(server.requests().size() == 1);  // the refused handshake sent nothing

  config.certificate_authority_pem.clear();
  config.insecure_skip_tls_verify = true;
  CHECK(clientFor(config)->get(kLlamaA).ok());
}

TEST_CASE("the server name is checked against the certificate's subjectAltName", "[kube][tls]") {
  // A certificate for a DNS name only: 127.0.0.1 is not in it.
  const TestCertificate serving = makeSelfSignedCertificate("apiserver", {"api.troupe.test"}, {});
  ScriptedServer server(tlsServer(serving));
  server.setHandler([](const RecordedRequest&) { return Reply::fixture(200, "tj-get.json"); });
  auto config = configFor(server);
  config.certificate_authority_pem = serving.cert_pem;

  auto by_ip = clientFor(config)->get(kLlamaA);
  REQUIRE_FALSE(by_ip.ok());
  CHECK_THAT(by_ip.error().message, Catch::Contains("certificate verify failed"));
  CHECK_THAT(by_ip.error().message,
             Catch::Contains("IP address mismatch", Catch::CaseSensitive::No));

  config.tls_server_name = "other.troupe.test";
  auto wrong_name = clientFor(config)->get(kLlamaA);
  REQUIRE_FALSE(wrong_name.ok());
  CHECK_THAT(wrong_name.error().message, Catch::Contains("hostname mismatch"));

  config.tls_server_name = "api.troupe.test";
  CHECK(clientFor(config)->get(kLlamaA).ok());
}

TEST_CASE("a client certificate from the kubeconfig is presented to the server", "[kube][tls]") {
  const TestCertificate serving = makeSelfSignedCertificate("apiserver", {}, {"127.0.0.1"});
  const TestCertificate operator_cert = makeSelfSignedCertificate("troupe-operator", {}, {});
  ScriptedServer server(tlsServer(serving, /*ask_client_cert=*/true));
  server.setHandler([](const RecordedRequest&) { return Reply::fixture(200, "tj-get.json"); });
  auto config = configFor(server);
  config.token.clear();
  config.certificate_authority_pem = serving.cert_pem;
  config.client_certificate_pem = operator_cert.cert_pem;
  config.client_key_pem = operator_cert.key_pem;
  REQUIRE(clientFor(config)->get(kLlamaA).ok());
  const auto r = server.requests().at(0);
  CHECK(r.client_cert_cn == "troupe-operator");
  CHECK(r.header("authorization").empty());
}

TEST_CASE("bad TLS material in the configuration is an error naming the field", "[kube][tls]") {
  const TestCertificate cert = makeSelfSignedCertificate("x", {}, {"127.0.0.1"});
  const TestCertificate other = makeSelfSignedCertificate("y", {}, {"127.0.0.1"});
  struct Case {
    std::string name;
    ClientConfig config;
    std::string want_field;
  };
  auto base = [] {
    ClientConfig c;
    c.server = "https://127.0.0.1:1";
    return c;
  };
  std::vector<Case> cases;
  {
    auto c = base();
    c.certificate_authority_pem = "not a certificate";
    cases.push_back({"a CA that is not PEM", c, "certificate-authority-data"});
  }
  {
    auto c = base();
    c.client_certificate_pem = cert.cert_pem;
    c.client_key_pem = other.key_pem;
    cases.push_back({"a key that does not match the certificate", c, "client-key-data"});
  }
  {
    auto c = base();
    c.server = "ftp://127.0.0.1:1";
    cases.push_back({"a server URL with another scheme", c, "server"});
  }
  {
    auto c = base();
    c.server = "https://127.0.0.1:6443/prefix";
    cases.push_back({"a server URL with a path", c, "server"});
  }
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      auto client = RestKubeClient::create(tc.config);
      REQUIRE_FALSE(client.ok());
      CHECK(client.error().field_path == tc.want_field);
    }
  }
}

TEST_CASE("a kubeconfig on disk gets a client to a TLS server end to end",
          "[kube][tls][kubeconfig]") {
  const TestCertificate serving = makeSelfSignedCertificate("apiserver", {}, {"127.0.0.1"});
  ScriptedServer server(tlsServer(serving));
  server.setHandler([](const RecordedRequest&) { return Reply::fixture(200, "version.json"); });
  TempDir dir;
  dir.write("pki/ca.crt", serving.cert_pem);
  dir.write("token", "kubeconfig-token\n");
  const std::string kubeconfig = dir.write("config", R"(apiVersion: v1
kind: Config
current-context: local
clusters:
- name: local
  cluster:
    server: )" + server.url() + R"(
    certificate-authority: pki/ca.crt
contexts:
- name: local
  context: {cluster: local, user: operator, namespace: troupe-system}
users:
- name: operator
  user: {tokenFile: token}
)");
  KubeconfigOptions options;
  options.explicit_path = kubeconfig;
  auto config = loadKubeconfig(options);
  REQUIRE(config.ok());
  auto client = RestKubeClient::create(*config);
  REQUIRE(client.ok());
  auto version = (*client)->getPath("/version");
  REQUIRE(version.ok());
  CHECK((*version)["gitVersion"] == "v1.28.7");
  CHECK(server.requests().at(0).header("authorization") == "Bearer kubeconfig-token");
  CHECK((*client)->config().ns == "troupe-system");
}
