#include "operator/admission_webhook.h"

#include <fmt/format.h>

#include <system_error>

#include "admission/object_admission.h"
#include "api/well_known.h"
#include "apiserver/http/https_server.h"
#include "common/json_parse.h"
#include "common/log.h"
#include "common/thread_name.h"

namespace troupe::operator_runtime {

using nlohmann::json;

namespace {

// An AdmissionReview holds the object and, on an update, its old version: two bodies of
// the API server's 3 MiB limit, and the envelope.
constexpr std::size_t kBodyLimit = 8 * 1024 * 1024;

std::optional<std::filesystem::file_time_type> modified(const std::string& path) {
  std::error_code ec;
  auto t = std::filesystem::last_write_time(path, ec);  // follows the Secret volume's links
  if (ec) return std::nullopt;
  return t;
}

}  // namespace

Result<json> AdmissionWebhook::review(const json& body, const admission::ClusterView& view,
                                      bool ready) {
  if (!body.is_object() || body.value("kind", "") != "AdmissionReview" ||
      !body.contains("request") || !body["request"].is_object())
    return makeError(ErrorCode::Invalid, "body", "not an AdmissionReview with a request");
  const json& r = body["request"];
  json response = {{"uid", r.value("uid", "")}, {"allowed", true}};
  auto answer = [&] {
    return json{{"apiVersion", body.value("apiVersion", "admission.k8s.io/v1")},
                {"kind", "AdmissionReview"},
                {"response", response}};
  };
  const std::string operation = r.value("operation", "");
  if ((operation != "CREATE" && operation != "UPDATE") || !r.value("subResource", "").empty())
    return answer();
  const json kind = r.value("kind", json::object());
  const std::string group = kind.value("group", "");
  admission::AdmissionRequest request;
  request.kind = kind.value("kind", "");
  if (group != api::kGroup && !(group.empty() && request.kind == "Pod")) return answer();
  if (!ready) {
    response["allowed"] = false;
    response["status"] = {{"status", "Failure"},
                          {"reason", "ServiceUnavailable"},
                          {"code", 503},
                          {"message", "the Troupe operator's caches are not synced yet"}};
    return answer();
  }
  request.operation =
      operation == "CREATE" ? admission::Operation::Create : admission::Operation::Update;
  request.ns = r.value("namespace", "");
  const json object = r.value("object", json());
  const json old = r.value("oldObject", json());
  request.object = &object;
  if (!old.is_null()) request.old_object = &old;
  auto verdict = admission::admit(request, view);
  if (verdict.allowed()) return answer();
  std::string name = r.value("name", "");
  if (name.empty() && object.is_object() && object.contains("metadata") &&
      object["metadata"].is_object())
    name = object["metadata"].value("name", "");
  api::StatusTarget target{group, r.value("resource", json::object()).value("resource", ""),
                           request.kind, name};
  response["allowed"] = false;
  response["status"] = json(verdict.status(target));
  return answer();
}

Result<std::unique_ptr<AdmissionWebhook>> AdmissionWebhook::start(
    AdmissionWebhookOptions options, const admission::ClusterView& view,
    std::function<bool()> ready) {
  std::unique_ptr<AdmissionWebhook> webhook(new AdmissionWebhook());
  webhook->options_ = options;
  apiserver::http::ServerOptions server;
  server.address = options.address;
  server.port = options.port;
  server.cert_file = options.cert_file;
  server.key_file = options.key_file;
  server.io_threads = 1;
  server.worker_threads = 4;
  server.body_limit = kBodyLimit;
  server.read_timeout_seconds = 30;
  const admission::ClusterView* cluster = &view;
  webhook->server_ = std::make_unique<apiserver::http::HttpsServer>(
      server, [cluster, ready](const apiserver::http::Request& request) {
        apiserver::http::Response response;
        if (request.path != "/validate") {
          response.status = 404;
          response.content_type = "text/plain";
          response.body = "404 page not found\n";
          return response;
        }
        if (request.method != "POST") {
          response.status = 405;
          response.content_type = "text/plain";
          response.body = "only POST\n";
          return response;
        }
        auto body = parseJson(request.body);
        auto answer =
            body.is_discarded()
                ? Result<json>(makeError(ErrorCode::Invalid, "body", "the body is not JSON"))
                : review(body, *cluster, ready());
        if (!answer) {
          response.status = 400;
          response.content_type = "text/plain";
          response.body = answer.error().describe() + "\n";
          return response;
        }
        response.body = answer->dump();
        return response;
      });
  auto port = webhook->server_->start();
  if (!port) return port.error();
  webhook->port_ = *port;
  auto* self = webhook.get();
  webhook->watcher_ = std::jthread([self](std::stop_token stop) {
    nameThisThread("op-webhook-tls");
    auto cert = modified(self->options_.cert_file);
    auto key = modified(self->options_.key_file);
    while (!stop.stop_requested()) {
      for (auto waited = std::chrono::milliseconds(0);
           waited < self->options_.certificate_check && !stop.stop_requested();
           waited += std::chrono::milliseconds(100))
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      auto cert_now = modified(self->options_.cert_file);
      auto key_now = modified(self->options_.key_file);
      if (cert_now == cert && key_now == key) continue;
      cert = cert_now;
      key = key_now;
      if (auto reloaded = self->server_->reloadCertificate(); !reloaded) {
        log::warn("webhook certificate not reloaded; the one served so far stays",
                  {{"error", reloaded.error().describe()}});
      } else {
        log::info("webhook certificate reloaded", {{"cert", self->options_.cert_file}});
      }
    }
  });
  return webhook;
}

AdmissionWebhook::~AdmissionWebhook() { stop(); }

void AdmissionWebhook::stop() {
  if (watcher_.joinable()) {
    watcher_.request_stop();
    watcher_.join();
  }
  if (server_) server_->stop();
}

}  // namespace troupe::operator_runtime
