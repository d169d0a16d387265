#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "admission/cluster_view.h"
#include "common/result.h"

namespace troupe::apiserver::http {
class HttpsServer;
}

// The validating admission webhook of `troupe operator`: HTTPS on its own port, POST
// /validate with an admission.k8s.io/v1 AdmissionReview, answered by admission/ (the checks
// troupe serve makes in-process) against the operator's caches. The chart registers it for
// Troupe's kinds and for pods that name a queue (helm/troupe/templates/webhook.yaml). Every
// replica serves it, leader or not. The certificate files are read again when they change
// on disk (a renewed certificate is served without a restart).
namespace troupe::operator_runtime {

struct AdmissionWebhookOptions {
  std::string address = "0.0.0.0";
  std::uint16_t port = 9443;  // 0: any free port
  std::string cert_file;      // PEM: the serving certificate (and its chain)
  std::string key_file;       // PEM
  std::chrono::seconds certificate_check{10};
};

class AdmissionWebhook {
 public:
  // Serves until stop(). `ready` says whether the view's caches are synced: before, every
  // request is refused (503) rather than judged on partial knowledge.
  static Result<std::unique_ptr<AdmissionWebhook>> start(AdmissionWebhookOptions options,
                                                         const admission::ClusterView& view,
                                                         std::function<bool()> ready);
  ~AdmissionWebhook();
  std::uint16_t port() const { return port_; }
  void stop();

  // The AdmissionReview answering `request` (an AdmissionReview with a request); an
  // Error when the body is not one.
  static Result<nlohmann::json> review(const nlohmann::json& request,
                                       const admission::ClusterView& view, bool ready);

 private:
  AdmissionWebhook() = default;

  AdmissionWebhookOptions options_;
  std::unique_ptr<apiserver::http::HttpsServer> server_;
  std::uint16_t port_ = 0;
  std::jthread watcher_;  // reloads the certificate when its files change
};

}  // namespace troupe::operator_runtime
