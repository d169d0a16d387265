#include <catch2/catch.hpp>

#include "dashboard/api_proxy.h"

using namespace troupe::dashboard;

namespace {

// A transport that records what it was asked to carry and answers `status`.
class RecordingTransport final : public troupe::kube::Transport {
 public:
  explicit RecordingTransport(int status) : status_(status) {}
  troupe::kube::ApiResult<troupe::kube::HttpResponse> send(const troupe::kube::HttpRequest& request,
                                                           std::chrono::milliseconds,
                                                           bool*) override {
    sent.push_back(request);
    return troupe::kube::HttpResponse{status_, {{"Content-Type", "application/json"}}, "{}"};
  }
  troupe::kube::ApiResult<troupe::kube::HttpResponse> stream(
      const troupe::kube::HttpRequest& request, std::chrono::milliseconds, std::stop_token,
      const std::function<void(std::string_view)>& on_body) override {
    sent.push_back(request);
    if (status_ == 200) {
      on_body(R"({"type":"ADDED","object":{}})"
              "\n");
      return troupe::kube::HttpResponse{200, {}, ""};
    }
    return troupe::kube::HttpResponse{
        status_, {}, R"({"kind":"Status","apiVersion":"v1","code":403,"reason":"Forbidden"})"};
  }
  std::vector<troupe::kube::HttpRequest> sent;

 private:
  int status_;
};

std::string headerOf(const troupe::kube::HttpRequest& request, const std::string& name) {
  for (const auto& [k, v] : request.headers)
    if (k == name) return v;
  return "";
}

}  // namespace

TEST_CASE("the proxy forwards reads with the caller's token and nothing else",
          "[dashboard][proxy]") {
  auto transport = std::make_unique<RecordingTransport>(200);
  auto* seen = transport.get();
  ApiProxy proxy(std::move(transport));
  auto no_start = [](const std::string&) { FAIL("not a stream"); };
  auto no_body = [](std::string_view) { return true; };

  auto answer = proxy.answer("GET", "/api/v1/nodes", "Bearer alice-token", {}, no_start, no_body);
  CHECK(answer.status == 200);
  REQUIRE(seen->sent.size() == 1);
  CHECK(seen->sent[0].target == "/api/v1/nodes");
  CHECK(headerOf(seen->sent[0], "Authorization") == "Bearer alice-token");

  // No token: refused here, never sent with anyone else's.
  CHECK(proxy.answer("GET", "/api/v1/nodes", "", {}, no_start, no_body).status == 401);
  CHECK(proxy.answer("GET", "/api/v1/nodes", "Basic eDp5", {}, no_start, no_body).status == 401);
  // Read-only: no write reaches the API server.
  for (const char* method : {"POST", "PUT", "PATCH", "DELETE"})
    CHECK(
        proxy.answer(method, "/api/v1/nodes", "Bearer alice-token", {}, no_start, no_body).status ==
        405);
  CHECK(seen->sent.size() == 1);
}

TEST_CASE("a watch streams through the proxy, and its failure arrives as an ERROR event",
          "[dashboard][proxy]") {
  for (int status : {200, 403}) {
    DYNAMIC_SECTION("the API server answers " << status) {
      ApiProxy proxy(std::make_unique<RecordingTransport>(status));
      std::string type, body;
      proxy.answer(
          "GET", "/apis/troupe.dev/v1alpha1/queues?watch=1&resourceVersion=7", "Bearer t", {},
          [&](const std::string& content_type) { type = content_type; },
          [&](std::string_view piece) {
            body += piece;
            return true;
          });
      // The head goes out before any event, so a quiet watch does not hold the browser.
      CHECK(type == "application/json");
      if (status == 200)
        CHECK(body == "{\"type\":\"ADDED\",\"object\":{}}\n");
      else
        CHECK_THAT(body, Catch::StartsWith("{\"object\":{\"apiVersion\":\"v1\",\"code\":403") &&
                             Catch::EndsWith("\"type\":\"ERROR\"}\n"));
    }
  }
}

TEST_CASE("the proxy serves the API's paths and tells a watch by its query", "[dashboard][proxy]") {
  CHECK(ApiProxy::handles("/api"));
  CHECK(ApiProxy::handles("/api/v1/pods"));
  CHECK(ApiProxy::handles("/apis/troupe.dev/v1alpha1/queues"));
  CHECK(ApiProxy::handles("/version"));
  CHECK_FALSE(ApiProxy::handles("/apiary"));
  CHECK_FALSE(ApiProxy::handles("/metrics"));
  CHECK_FALSE(ApiProxy::handles("/healthz"));
  CHECK(isWatch("/api/v1/pods?watch=1"));
  CHECK(isWatch("/api/v1/pods?limit=5&watch=true"));
  CHECK_FALSE(isWatch("/api/v1/pods?watch=false"));
  CHECK_FALSE(isWatch("/api/v1/pods?rewatch=1"));
  CHECK_FALSE(isWatch("/api/v1/pods"));
}
