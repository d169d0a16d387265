#include "dashboard/api_proxy.h"

#include <nlohmann/json.hpp>

#include "kube/http_transport.h"

namespace troupe::dashboard {
namespace {

using json = nlohmann::json;

std::string statusText(int code, const std::string& reason, const std::string& message) {
  return json{{"kind", "Status"},    {"apiVersion", "v1"}, {"metadata", json::object()},
              {"status", "Failure"}, {"message", message}, {"reason", reason},
              {"code", code}}
      .dump();
}

ProxyAnswer statusAnswer(int code, const std::string& reason, const std::string& message) {
  return {code, "application/json", statusText(code, reason, message)};
}

// The upstream deadline for one whole answer; a watch ends when the API server ends it
// (the dashboard asks for timeoutSeconds), this only bounds a stuck one.
constexpr std::chrono::milliseconds kReadTimeout{30'000};
constexpr std::chrono::milliseconds kWatchTimeout{3'600'000};

}  // namespace

bool isWatch(std::string_view target) {
  auto q = target.find('?');
  if (q == std::string_view::npos) return false;
  std::string_view query = target.substr(q + 1);
  while (!query.empty()) {
    auto amp = query.find('&');
    std::string_view pair = query.substr(0, amp);
    if (pair == "watch=true" || pair == "watch=1") return true;
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return false;
}

Result<std::unique_ptr<ApiProxy>> ApiProxy::create(const kube::ClientConfig& config) {
  kube::TransportConfig transport;
  transport.server = config.server;
  transport.certificate_authority_pem = config.certificate_authority_pem;
  transport.insecure_skip_tls_verify = config.insecure_skip_tls_verify;
  transport.tls_server_name = config.tls_server_name;
  // No client certificate: the API server would take it as the identity before any token.
  auto made = kube::HttpTransport::create(transport);
  if (!made) return made.error();
  return std::make_unique<ApiProxy>(std::move(made.value()));
}

ApiProxy::ApiProxy(std::unique_ptr<kube::Transport> transport) : transport_(std::move(transport)) {}

bool ApiProxy::handles(std::string_view path) {
  for (std::string_view root : {"/api", "/apis", "/version"})
    if (path == root || (path.size() > root.size() && path.substr(0, root.size()) == root &&
                         path[root.size()] == '/'))
      return true;
  return false;
}

ProxyAnswer ApiProxy::answer(const std::string& method, const std::string& target,
                             const std::string& authorization, std::stop_token stop,
                             const std::function<void(const std::string&)>& start,
                             const std::function<bool(std::string_view)>& on_body) {
  if (method != "GET")
    return statusAnswer(405, "MethodNotAllowed",
                        "the dashboard is read-only: " + method + " is not forwarded");
  if (authorization.rfind("Bearer ", 0) != 0 || authorization.size() <= 7)
    return statusAnswer(401, "Unauthorized", "Unauthorized: a bearer token is required");
  kube::HttpRequest request;
  request.method = "GET";
  request.target = target;
  request.headers = {{"Authorization", authorization},
                     {"Accept", "application/json"},
                     {"User-Agent", "troupe-dashboard"}};
  if (!isWatch(target)) {
    auto sent = transport_->send(request, kReadTimeout);
    if (!sent) return statusAnswer(502, "BadGateway", "the API server: " + sent.error().message);
    ProxyAnswer answer{sent->status, sent->header("Content-Type"), std::move(sent->body)};
    if (answer.content_type.empty()) answer.content_type = "application/json";
    return answer;
  }
  // The stream's head goes out at once, so the browser need not wait for a first event.
  start("application/json");
  std::stop_source browser_left;
  std::stop_callback forward(stop, [&] { browser_left.request_stop(); });
  auto streamed = transport_->stream(request, kWatchTimeout, browser_left.get_token(),
                                     [&](std::string_view piece) {
                                       if (!on_body(piece)) browser_left.request_stop();
                                     });
  auto fail = [&](int code, const std::string& reason, const std::string& message) {
    json status = json::parse(statusText(code, reason, message));
    on_body(json{{"type", "ERROR"}, {"object", status}}.dump() + "\n");
  };
  if (!streamed) {
    if (!browser_left.stop_requested())
      fail(502, "BadGateway", "the API server: " + streamed.error().message);
  } else if (streamed->status < 200 || streamed->status > 299) {
    // The API server's own Status, as the event a watch reports it in.
    json status = json::parse(streamed->body, nullptr, false);
    if (status.is_object() && status.value("kind", "") == "Status")
      on_body(json{{"type", "ERROR"}, {"object", status}}.dump() + "\n");
    else
      fail(streamed->status, "", streamed->body);
  }
  return {200, "application/json", ""};
}

}  // namespace troupe::dashboard
