#include <catch2/catch.hpp>

#include "admission/verdict.h"
#include "test/helm/chart_files.h"
#include "test/support/command.h"
#include "test/support/temp_dir.h"

// The chart's admission webhook: its configuration, Service and certificate, made by the
// chart itself or by cert-manager, and the operator's flags and volume that serve it.
namespace troupe::helm_test {
namespace {

std::string decoded(const YAML::Node& base64_value, const troupe::testing::TempDir& dir,
                    const std::string& name) {
  auto encoded = dir.write(name + ".b64", base64_value.as<std::string>());
  auto run = troupe::testing::runCommand("base64 -d " + encoded + " > " + dir.file(name), true);
  REQUIRE(run.exit_code == 0);
  return dir.file(name);
}

TEST_CASE("the webhook configuration sends Troupe's kinds and pods naming a queue to the operator",
          "[helm][webhook]") {
  auto documents = renderChart();
  auto config = findObject(documents, "ValidatingWebhookConfiguration");
  CHECK_FALSE(config["metadata"]["namespace"]);
  auto webhooks = config["webhooks"];
  REQUIRE(webhooks.size() == 2);
  auto service = findObject(documents, "Service", "-webhook");
  for (const auto& webhook : webhooks) {
    INFO(webhook["name"].as<std::string>());
    CHECK(webhook["failurePolicy"].as<std::string>() == "Fail");
    CHECK(webhook["sideEffects"].as<std::string>() == "None");
    CHECK(webhook["admissionReviewVersions"].as<std::vector<std::string>>() ==
          std::vector<std::string>{"v1"});
    const auto& target = webhook["clientConfig"]["service"];
    CHECK(target["name"].as<std::string>() == service["metadata"]["name"].as<std::string>());
    CHECK(target["namespace"].as<std::string>() == kReleaseNamespace);
    CHECK(target["path"].as<std::string>() == "/validate");
  }
  // The names troupe serve gives its refusals are the webhooks' names.
  CHECK(webhooks[0]["name"].as<std::string>() == admission::kWebhookName);
  CHECK(webhooks[1]["name"].as<std::string>() == admission::kPodWebhookName);
  auto troupe_rule = webhooks[0]["rules"][0];
  CHECK(troupe_rule["apiGroups"].as<std::vector<std::string>>() ==
        std::vector<std::string>{"troupe.dev"});
  CHECK(troupe_rule["resources"].as<std::vector<std::string>>() ==
        std::vector<std::string>{"trainingjobs", "podgroups", "queues", "gputypes"});
  CHECK(troupe_rule["operations"].as<std::vector<std::string>>() ==
        std::vector<std::string>{"CREATE", "UPDATE"});
  auto pod_rule = webhooks[1]["rules"][0];
  CHECK(pod_rule["resources"].as<std::vector<std::string>>() == std::vector<std::string>{"pods"});
  CHECK(pod_rule["operations"].as<std::vector<std::string>>() ==
        std::vector<std::string>{"CREATE"});
  auto selector = webhooks[1]["objectSelector"]["matchExpressions"][0];
  CHECK(selector["key"].as<std::string>() == "troupe.dev/queue");
  CHECK(selector["operator"].as<std::string>() == "Exists");

  // The Service reaches the operator's pods on the port the operator serves the webhook on.
  auto deployment = findObject(documents, "Deployment");
  auto pod = deployment["spec"]["template"]["spec"];
  CHECK(service["spec"]["selector"]["app.kubernetes.io/component"].as<std::string>() ==
        deployment["spec"]["selector"]["matchLabels"]["app.kubernetes.io/component"]
            .as<std::string>());
  CHECK(service["spec"]["ports"][0]["targetPort"].as<std::string>() == "webhook");
  bool serves_port = false;
  for (const auto& port : pod["containers"][0]["ports"])
    serves_port |=
        port["name"].as<std::string>() == "webhook" && port["containerPort"].as<int>() == 9443;
  CHECK(serves_port);
}

TEST_CASE("the chart's own CA signs a certificate for the webhook Service and is injected",
          "[helm][webhook]") {
  auto documents = renderChart();
  auto secret = findObject(documents, "Secret", "-webhook-tls");
  CHECK(secret["type"].as<std::string>() == "kubernetes.io/tls");
  auto config = findObject(documents, "ValidatingWebhookConfiguration");
  for (const auto& webhook : config["webhooks"])
    CHECK(webhook["clientConfig"]["caBundle"].as<std::string>() ==
          secret["data"]["ca.crt"].as<std::string>());
  troupe::testing::TempDir dir;
  auto ca = decoded(secret["data"]["ca.crt"], dir, "ca.crt");
  auto crt = decoded(secret["data"]["tls.crt"], dir, "tls.crt");
  auto key = decoded(secret["data"]["tls.key"], dir, "tls.key");
  auto verify = troupe::testing::runCommand("openssl verify -CAfile " + ca + " " + crt, true);
  INFO(verify.output);
  CHECK(verify.exit_code == 0);
  auto names =
      troupe::testing::runCommand("openssl x509 -noout -ext subjectAltName -in " + crt, true);
  CHECK_THAT(names.output, Catch::Contains("DNS:troupe-webhook.troupe-system.svc"));
  // The key is the certificate's.
  auto a = troupe::testing::runCommand("openssl x509 -noout -pubkey -in " + crt, true);
  auto b = troupe::testing::runCommand("openssl pkey -pubout -in " + key, true);
  CHECK(a.output == b.output);

  // The operator reads the certificate from that Secret.
  auto pod = findObject(documents, "Deployment")["spec"]["template"]["spec"];
  bool mounted = false;
  for (const auto& volume : pod["volumes"])
    mounted |= volume["secret"] && volume["secret"]["secretName"].as<std::string>("") ==
                                       secret["metadata"]["name"].as<std::string>();
  CHECK(mounted);
}

TEST_CASE("with cert-manager in the cluster, cert-manager makes and injects the certificate",
          "[helm][webhook]") {
  auto documents = renderChart({}, {"cert-manager.io/v1"});
  auto certificate = findObject(documents, "Certificate");
  auto issuer = findObject(documents, "Issuer");
  CHECK(certificate["spec"]["issuerRef"]["name"].as<std::string>() ==
        issuer["metadata"]["name"].as<std::string>());
  CHECK(certificate["spec"]["secretName"].as<std::string>() == "troupe-webhook-tls");
  CHECK(certificate["spec"]["dnsNames"][0].as<std::string>() == "troupe-webhook.troupe-system.svc");
  for (const auto& doc : documents) CHECK(doc["kind"].as<std::string>() != "Secret");
  auto config = findObject(documents, "ValidatingWebhookConfiguration");
  CHECK(config["metadata"]["annotations"]["cert-manager.io/inject-ca-from"].as<std::string>() ==
        "troupe-system/" + certificate["metadata"]["name"].as<std::string>());
  for (const auto& webhook : config["webhooks"]) CHECK_FALSE(webhook["clientConfig"]["caBundle"]);
}

TEST_CASE("without the webhook the operator serves none and nothing is registered",
          "[helm][webhook]") {
  troupe::testing::TempDir dir;
  auto values = dir.write("values.yaml", "webhook:\n  enabled: false\n");
  auto documents = renderChart({values});
  for (const auto& doc : documents) {
    CHECK(doc["kind"].as<std::string>() != "ValidatingWebhookConfiguration");
    CHECK(doc["kind"].as<std::string>() != "Secret");
  }
  auto args =
      findObject(documents, "Deployment")["spec"]["template"]["spec"]["containers"][0]["args"]
          .as<std::vector<std::string>>();
  for (const auto& arg : args) CHECK(arg.rfind("--webhook", 0) == std::string::npos);
}

}  // namespace
}  // namespace troupe::helm_test
