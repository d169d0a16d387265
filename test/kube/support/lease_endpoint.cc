#include "test/kube/support/lease_endpoint.h"

#include <fmt/format.h>

namespace troupe::kube::testing {
namespace {

Reply status(int code, const std::string& reason, const std::string& message) {
  nlohmann::json body = {
      {"kind", "Status"},    {"apiVersion", "v1"}, {"metadata", nlohmann::json::object()},
      {"status", "Failure"}, {"message", message}, {"reason", reason},
      {"code", code}};
  return Reply::json(code, body.dump());
}

}  // namespace

LeaseEndpoint::LeaseEndpoint(ScriptedServer& server) {
  server.setHandler([this](const RecordedRequest& r) { return handle(r); });
}

nlohmann::json LeaseEndpoint::lease() const {
  std::lock_guard lock(mu_);
  return lease_;
}

void LeaseEndpoint::setAvailable(bool available) {
  std::lock_guard lock(mu_);
  available_ = available;
}

int LeaseEndpoint::writes() const {
  std::lock_guard lock(mu_);
  return writes_;
}

Reply LeaseEndpoint::handle(const RecordedRequest& r) {
  std::lock_guard lock(mu_);
  if (!available_) return status(503, "ServiceUnavailable", "apiserver is shutting down");
  if (r.path.rfind("/apis/coordination.k8s.io/v1/namespaces/", 0) != 0) {
    return Reply::fixture(404, "err-404-unknown-resource.txt");
  }
  if (r.method == "GET") {
    if (lease_.is_null()) {
      return status(404, "NotFound",
                    "leases.coordination.k8s.io \"troupe-operator-leader\" not found");
    }
    return Reply::json(200, lease_.dump());
  }
  auto body = nlohmann::json::parse(r.body, nullptr, false);
  if (!body.is_object()) return Reply::fixture(400, "err-400-bad-json.json");
  if (r.method == "POST") {
    if (!lease_.is_null()) return Reply::fixture(409, "err-409-already-exists.json");
    lease_ = body;
  } else if (r.method == "PUT") {
    if (lease_.is_null()) return status(404, "NotFound", "not found");
    if (body["metadata"].value("resourceVersion", "") != lease_["metadata"]["resourceVersion"]) {
      return Reply::fixture(409, "err-409-lease-conflict.json");
    }
    lease_ = body;
  } else {
    return status(405, "MethodNotAllowed", r.method);
  }
  lease_["metadata"]["resourceVersion"] = std::to_string(++revision_);
  ++writes_;
  return Reply::json(r.method == "POST" ? 201 : 200, lease_.dump());
}

}  // namespace troupe::kube::testing
