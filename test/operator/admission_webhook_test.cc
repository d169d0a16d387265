#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "apiserver/tls/self_signed_certificate.h"
#include "operator/admission_webhook.h"
#include "test/support/command.h"
#include "test/support/temp_dir.h"

// The operator's admission webhook as kube-apiserver calls it: HTTPS POSTs of
// AdmissionReviews, answered from a view of the cluster.
namespace troupe::operator_runtime {
namespace {

using nlohmann::json;
using testing::runCommand;
using testing::TempDir;

// team-a admits only namespace team-a.
class OneQueue : public admission::ClusterView {
 public:
  std::vector<api::Validated<api::Queue>> queues() const override {
    json q = {{"apiVersion", "troupe.dev/v1alpha1"},
              {"kind", "Queue"},
              {"metadata", {{"name", "team-a"}}},
              {"spec", {{"namespaces", {"team-a"}}}}};
    return {api::decodeAndValidate<api::Queue>(q)};
  }
  std::optional<std::map<std::string, std::string>> namespaceLabels(
      const std::string&) const override {
    return std::map<std::string, std::string>{};
  }
};

json reviewOf(const std::string& ns, const std::string& operation = "CREATE") {
  json job = {{"apiVersion", "troupe.dev/v1alpha1"},
              {"kind", "TrainingJob"},
              {"metadata", {{"name", "llama"}, {"namespace", ns}}},
              {"spec",
               {{"queue", "team-a"},
                {"replicas", 1},
                {"template", {{"spec", {{"containers", {{{"name", "c"}, {"image", "i"}}}}}}}}}}};
  return {{"apiVersion", "admission.k8s.io/v1"},
          {"kind", "AdmissionReview"},
          {"request",
           {{"uid", "705ab4f5-6393-11e8-b7cc-42010a800002"},
            {"kind", {{"group", "troupe.dev"}, {"version", "v1alpha1"}, {"kind", "TrainingJob"}}},
            {"resource",
             {{"group", "troupe.dev"}, {"version", "v1alpha1"}, {"resource", "trainingjobs"}}},
            {"name", "llama"},
            {"namespace", ns},
            {"operation", operation},
            {"object", job},
            {"oldObject", operation == "UPDATE" ? job : json()}}}};
}

TEST_CASE("the webhook answers an AdmissionReview with the uid and admission's verdict",
          "[operator][webhook]") {
  OneQueue view;
  auto allowed = AdmissionWebhook::review(reviewOf("team-a"), view, true);
  REQUIRE(allowed.ok());
  CHECK((*allowed)["response"]["uid"] == "705ab4f5-6393-11e8-b7cc-42010a800002");
  CHECK((*allowed)["response"]["allowed"] == true);

  auto refused = AdmissionWebhook::review(reviewOf("team-b"), view, true);
  REQUIRE(refused.ok());
  const json& response = (*refused)["response"];
  CHECK(response["allowed"] == false);
  CHECK(response["status"]["code"] == 403);
  CHECK(response["status"]["reason"] == "Forbidden");
  CHECK(response["status"]["message"] ==
        "trainingjobs.troupe.dev \"llama\" is forbidden: queue team-a does not admit namespace "
        "team-b (it admits team-a)");
  CHECK(response["status"]["details"]["causes"][0]["field"] == "spec.queue");

  // An update does not check the namespace again (the queue cannot change); a replica whose
  // caches are not synced refuses rather than guesses.
  CHECK((*AdmissionWebhook::review(reviewOf("team-b", "UPDATE"), view,
                                   true))["response"]["allowed"] == true);
  auto starting = AdmissionWebhook::review(reviewOf("team-a"), view, false);
  CHECK((*starting)["response"]["status"]["code"] == 503);
  CHECK_FALSE(AdmissionWebhook::review(json{{"kind", "Pod"}}, view, true).ok());
}

std::string post(int port, const std::string& ca, const std::string& body_file) {
  auto run = runCommand("curl -sS --max-time 10 --cacert " + ca +
                            " -H 'Content-Type: application/json' --data-binary @" + body_file +
                            " https://127.0.0.1:" + std::to_string(port) + "/validate",
                        true);
  return run.output;
}

TEST_CASE("the webhook serves over HTTPS and picks up a renewed certificate without a restart",
          "[operator][webhook]") {
  TempDir first, renewed, serving;
  auto a = apiserver::tls::ensureSelfSignedCertificate(first.path());
  auto b = apiserver::tls::ensureSelfSignedCertificate(renewed.path());
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  namespace fs = std::filesystem;
  auto install = [&](const apiserver::tls::CertificateFiles& files) {
    fs::copy_file(files.cert_file, serving.file("tls.crt"), fs::copy_options::overwrite_existing);
    fs::copy_file(files.key_file, serving.file("tls.key"), fs::copy_options::overwrite_existing);
  };
  install(*a);
  OneQueue view;
  AdmissionWebhookOptions options;
  options.address = "127.0.0.1";
  options.port = 0;
  options.cert_file = serving.file("tls.crt");
  options.key_file = serving.file("tls.key");
  options.certificate_check = std::chrono::seconds(1);
  auto webhook = AdmissionWebhook::start(options, view, [] { return true; });
  REQUIRE(webhook.ok());
  const int port = (*webhook)->port();
  auto body = serving.write("review.json", reviewOf("team-b").dump());

  auto answer = post(port, a->cert_file, body);
  INFO(answer);
  REQUIRE(answer.find("\"allowed\":false") != std::string::npos);
  // A client that trusts only the renewed certificate is refused until it is on disk.
  CHECK(post(port, b->cert_file, body).find("\"allowed\"") == std::string::npos);

  install(*b);
  bool renewed_served = false;
  for (int i = 0; i < 50 && !renewed_served; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    renewed_served = post(port, b->cert_file, body).find("\"allowed\":false") != std::string::npos;
  }
  CHECK(renewed_served);
  (*webhook)->stop();
}

}  // namespace
}  // namespace troupe::operator_runtime
