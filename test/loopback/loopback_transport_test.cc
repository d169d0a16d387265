// The loopback carries the operator's and the kubelets' requests into `troupe serve`'s own
// handler. These tests hold it to what the HTTPS path gives any client: the same answers
// and Status bodies, the same authentication, watches that stream, stop, end at their
// deadline and are ended when their watcher falls behind.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "kube/rest_kube_client.h"
#include "loopback/loopback_transport.h"
#include "test/support/in_process_server.h"

namespace troupe::testing {
namespace {

using json = nlohmann::json;
using namespace std::chrono_literals;
namespace http = apiserver::http;

const kube::ResourceType kConfigMaps{"", "v1", "configmaps", "ConfigMap", true};
const kube::ObjectRef kConfigMap{kConfigMaps, "fixtures", "settings", ""};

loopback::LoopbackTransport::Handler handlerOf(InProcessServer& server) {
  return [&server](const http::Request& request) { return server.server().handle(request); };
}

std::unique_ptr<kube::RestKubeClient> loopbackClient(loopback::LoopbackTransport::Handler handler,
                                                     const std::string& token,
                                                     loopback::LoopbackOptions options = {}) {
  kube::ClientConfig config;
  config.token = token;
  config.qps = 10000;
  config.burst = 10000;
  config.max_retries = 0;
  return kube::RestKubeClient::create(
      config, std::make_unique<loopback::LoopbackTransport>(std::move(handler), options));
}

json configMap(const std::string& name, const std::string& value) {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", {{"name", name}, {"namespace", "fixtures"}}},
          {"data", {{"value", value}}}};
}

void makeNamespace(InProcessServer& server) {
  auto reply = server.send("POST", "/api/v1/namespaces", R"({"metadata":{"name":"fixtures"}})");
  REQUIRE(reply.status == 201);
}

// One request through the loopback, as the client's transport sends it.
kube::HttpResponse sendRaw(loopback::LoopbackTransport& transport, const std::string& method,
                           const std::string& target, const std::string& token,
                           const std::string& body = "") {
  kube::HttpRequest request{method, target, {{"Accept", "application/json"}}, body};
  if (!token.empty()) request.headers.emplace_back("Authorization", "Bearer " + token);
  if (!body.empty()) request.headers.emplace_back("Content-Type", "application/json");
  auto response = transport.send(request, 5s);
  REQUIRE(response.ok());
  return *response;
}

TEST_CASE("the loopback answers every request as the HTTPS server does", "[loopback]") {
  InProcessServer server;
  makeNamespace(server);
  loopback::LoopbackTransport transport(handlerOf(server));
  const std::string token = server.adminToken();
  const std::string configmaps = "/api/v1/namespaces/fixtures/configmaps";
  const std::string created_body = configMap("settings", "1").dump();

  auto created = sendRaw(transport, "POST", configmaps, token, created_body);
  CHECK(created.status == 201);
  CHECK(created.header("Content-Type") == "application/json");

  // Answers that do not depend on who asked or when must be byte for byte the same.
  struct Case {
    std::string method, target, body;
  };
  const std::vector<Case> cases = {
      {"GET", configmaps + "/settings", ""},
      {"GET", configmaps + "/missing", ""},
      {"POST", configmaps, created_body},  // 409 AlreadyExists
      {"POST", configmaps, R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{}})"},  // 422
      {"GET", "/api/v1/namespaces/fixtures/widgets", ""},
      {"GET", configmaps + "?labelSelector=a%20in", ""},  // a bad selector
  };
  for (const Case& c : cases) {
    INFO(c.method << " " << c.target);
    auto loop = sendRaw(transport, c.method, c.target, token, c.body);
    auto https = server.send(c.method, c.target, c.body);
    CHECK(loop.status == https.status);
    CHECK(loop.header("Content-Type") == https.content_type);
    CHECK(loop.body == https.body);
  }
  CHECK(sendRaw(transport, "GET", configmaps + "/missing", token).status == 404);
  CHECK(sendRaw(transport, "POST", configmaps, token, created_body).status == 409);
}

TEST_CASE("the loopback authenticates and authorises like HTTPS", "[loopback]") {
  InProcessServer server;
  makeNamespace(server);
  loopback::LoopbackTransport transport(handlerOf(server));
  const std::string jobs = "/apis/troupe.dev/v1alpha1/namespaces/fixtures/trainingjobs";

  CHECK(sendRaw(transport, "GET", jobs, "").status == 401);
  CHECK(sendRaw(transport, "GET", jobs, "not-a-token").status == 401);
  CHECK(sendRaw(transport, "GET", jobs, InProcessServer::kTenantToken).status == 200);
  // The tenant token is scoped to its namespace.
  auto elsewhere =
      sendRaw(transport, "GET", "/apis/troupe.dev/v1alpha1/namespaces/default/trainingjobs",
              InProcessServer::kTenantToken);
  CHECK(elsewhere.status == 403);
  CHECK(json::parse(elsewhere.body)["reason"] == "Forbidden");
}

TEST_CASE("a REST client over the loopback gets the server's errors as ApiErrors", "[loopback]") {
  InProcessServer server;
  makeNamespace(server);
  auto client = loopbackClient(handlerOf(server), server.adminToken());

  auto made = client->create(kConfigMaps, "fixtures", configMap("settings", "1"), {});
  REQUIRE(made.ok());
  auto again = client->create(kConfigMaps, "fixtures", configMap("settings", "1"), {});
  REQUIRE(!again.ok());
  CHECK(again.error().isAlreadyExists());

  json stale = *made;
  stale["data"]["value"] = "2";
  REQUIRE(client->update(kConfigMap, stale, {}).ok());
  auto conflict = client->update(kConfigMap, stale, {});  // the same resourceVersion again
  REQUIRE(!conflict.ok());
  CHECK(conflict.error().isConflict());

  auto got = client->get(kConfigMap);
  REQUIRE(got.ok());
  CHECK((*got)["data"]["value"] == "2");
  CHECK(client->get({kConfigMaps, "fixtures", "missing", ""}).error().isNotFound());
}

TEST_CASE("a watch over the loopback streams events in order and stops when asked", "[loopback]") {
  InProcessServer server;
  makeNamespace(server);
  auto client = loopbackClient(handlerOf(server), server.adminToken());
  auto list = client->list(kConfigMaps, "fixtures", {});
  REQUIRE(list.ok());

  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::string> names;
  std::stop_source stop;
  kube::WatchOptions options;
  options.resource_version = (*list)["metadata"]["resourceVersion"].get<std::string>();
  auto watching = std::async(std::launch::async, [&] {
    return client->watch(
        kConfigMaps, "fixtures", options,
        [&](const kube::WatchEvent& event) {
          if (event.type != kube::WatchEventType::Added) return;
          std::lock_guard lock(mu);
          names.push_back(event.object["metadata"]["name"].get<std::string>());
          cv.notify_all();
        },
        stop.get_token());
  });
  std::vector<std::string> expected;
  for (int i = 0; i < 20; ++i) {
    expected.push_back("cm-" + std::to_string(i));
    REQUIRE(client->create(kConfigMaps, "fixtures", configMap(expected.back(), "x"), {}).ok());
  }
  {
    std::unique_lock lock(mu);
    REQUIRE(cv.wait_for(lock, 10s, [&] { return names.size() == expected.size(); }));
    CHECK(names == expected);
  }
  const auto asked = std::chrono::steady_clock::now();
  stop.request_stop();
  REQUIRE(watching.wait_for(5s) == std::future_status::ready);
  CHECK(std::chrono::steady_clock::now() - asked < 2s);
  auto ended = watching.get();
  REQUIRE(!ended.ok());
  CHECK(ended.error().reason == kube::transport_reason::kCancelled);
}

TEST_CASE("a watch over the loopback ends at the server's timeout and at its own deadline",
          "[loopback]") {
  InProcessServer server;
  makeNamespace(server);
  auto client = loopbackClient(handlerOf(server), server.adminToken());

  // timeoutSeconds: the server ends the stream; the watch succeeds.
  kube::WatchOptions options;
  options.timeout_seconds = 1;
  const auto start = std::chrono::steady_clock::now();
  auto ended = client->watch(kConfigMaps, "fixtures", options, [](const kube::WatchEvent&) {}, {});
  CHECK(ended.ok());
  CHECK(std::chrono::steady_clock::now() - start < 5s);

  // The transport's own deadline, for a server that never ends the stream.
  loopback::LoopbackTransport transport(handlerOf(server));
  kube::HttpRequest request{"GET",
                            "/api/v1/namespaces/fixtures/configmaps?watch=true",
                            {{"Authorization", "Bearer " + server.adminToken()}},
                            {}};
  auto cut = transport.stream(request, 300ms, {}, [](std::string_view) {});
  REQUIRE(!cut.ok());
  CHECK(cut.error().reason == kube::transport_reason::kTimeout);
}

// A sink that tells the test when the stream's pushes are refused, around the loopback's.
class ObservedSink final : public http::StreamSink {
 public:
  ObservedSink(std::shared_ptr<http::StreamSink> inner, std::promise<void>& refused)
      : inner_(std::move(inner)), refused_(refused) {}
  bool push(std::string chunk) override {
    const bool taken = inner_->push(std::move(chunk));
    if (!taken && !told_.exchange(true)) refused_.set_value();
    return taken;
  }
  void finish() override { inner_->finish(); }

 private:
  std::shared_ptr<http::StreamSink> inner_;
  std::promise<void>& refused_;
  std::atomic<bool> told_{false};
};

class ObservedStream final : public http::ResponseStream {
 public:
  ObservedStream(std::shared_ptr<http::ResponseStream> inner, std::promise<void>& refused)
      : inner_(std::move(inner)), refused_(refused) {}
  void start(std::shared_ptr<http::StreamSink> sink) override {
    inner_->start(std::make_shared<ObservedSink>(std::move(sink), refused_));
  }
  void stop() override { inner_->stop(); }

 private:
  std::shared_ptr<http::ResponseStream> inner_;
  std::promise<void>& refused_;
};

TEST_CASE("a watcher that falls behind the loopback's limit has its stream ended", "[loopback]") {
  InProcessServer server;
  makeNamespace(server);
  std::promise<void> refused;
  auto refused_seen = refused.get_future();
  loopback::LoopbackTransport::Handler observed = [&](const http::Request& request) {
    http::Response response = server.server().handle(request);
    if (response.stream)
      response.stream = std::make_shared<ObservedStream>(std::move(response.stream), refused);
    return response;
  };
  loopback::LoopbackOptions limits;
  limits.stream_backlog_limit = 8 * 1024;
  auto watcher = loopbackClient(observed, server.adminToken(), limits);
  auto writer = loopbackClient(handlerOf(server), server.adminToken());

  // The watcher takes its first event and then stops reading until the stream refused a push.
  std::promise<void> first_event;
  std::atomic<int> events{0};
  std::stop_source stop;
  kube::WatchOptions options;
  options.resource_version =
      (*writer->list(kConfigMaps, "fixtures", {}))["metadata"]["resourceVersion"]
          .get<std::string>();
  auto watching = std::async(std::launch::async, [&] {
    return watcher->watch(
        kConfigMaps, "fixtures", options,
        [&](const kube::WatchEvent&) {
          if (events.fetch_add(1) == 0) {
            first_event.set_value();
            refused_seen.wait_for(30s);
          }
        },
        stop.get_token());
  });
  const std::string value(1024, 'v');
  REQUIRE(writer->create(kConfigMaps, "fixtures", configMap("first", value), {}).ok());
  REQUIRE(first_event.get_future().wait_for(10s) == std::future_status::ready);
  // 8 KiB of backlog holds fewer than 8 of these events.
  for (int i = 0; i < 40; ++i) {
    REQUIRE(writer->create(kConfigMaps, "fixtures", configMap("cm-" + std::to_string(i), value), {})
                .ok());
  }
  REQUIRE(watching.wait_for(30s) == std::future_status::ready);
  auto ended = watching.get();
  REQUIRE(!ended.ok());
  CHECK(ended.error().reason == kube::transport_reason::kDroppedMidResponse);
  CHECK_THAT(ended.error().message, Catch::Contains("8192 bytes behind"));
  // What was queued before the limit still reached the watcher; what came after did not.
  CHECK(events.load() > 1);
  CHECK(events.load() < 41);
}

TEST_CASE("the loopback refuses a body over the limit and turns a throw into a 500 Status",
          "[loopback]") {
  loopback::LoopbackOptions limits;
  limits.body_limit = 1024;
  bool reached = false;
  loopback::LoopbackTransport small(
      [&](const http::Request&) {
        reached = true;
        return http::Response{};
      },
      limits);
  auto big =
      sendRaw(small, "POST", "/api/v1/namespaces/fixtures/configmaps", "t", std::string(2048, 'x'));
  CHECK(big.status == 413);
  CHECK(json::parse(big.body)["message"] == "Request entity too large: limit is 1024");
  CHECK_FALSE(reached);

  loopback::LoopbackTransport throwing(
      [](const http::Request&) -> http::Response { throw std::runtime_error("store closed"); });
  auto failed = sendRaw(throwing, "GET", "/api/v1/pods", "t");
  CHECK(failed.status == 500);
  CHECK(json::parse(failed.body)["reason"] == "InternalError");
  CHECK(json::parse(failed.body)["message"] == "store closed");
}

TEST_CASE("the loopback hands the handler the request as an HTTPS session does", "[loopback]") {
  http::Request seen;
  loopback::LoopbackTransport transport([&](const http::Request& request) {
    seen = request;
    return http::Response{};
  });
  kube::HttpRequest request{"PATCH",
                            "/api/v1/namespaces/a%2Db/pods/p?fieldManager=troupe&dryRun=All",
                            {{"Content-Type", "application/merge-patch+json"}},
                            "{}"};
  REQUIRE(transport.send(request, 1s).ok());
  CHECK(seen.method == "PATCH");
  CHECK(seen.path == "/api/v1/namespaces/a-b/pods/p");
  CHECK(seen.param("fieldManager") == "troupe");
  CHECK(seen.param("dryRun") == "All");
  CHECK(seen.header("content-type") == "application/merge-patch+json");
  CHECK(seen.body == "{}");
}

}  // namespace
}  // namespace troupe::testing
