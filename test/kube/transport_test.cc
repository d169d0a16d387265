#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <thread>

#include "kube/rest_kube_client.h"
#include "test/kube/support/client_for.h"
#include "test/kube/support/scripted_server.h"
#include "test/support/temp_dir.h"

using namespace troupe;
using namespace troupe::kube;
using namespace troupe::kube::testing;
using nlohmann::json;
using std::chrono::milliseconds;
using troupe::testing::TempDir;
using SteadyClock = std::chrono::steady_clock;

namespace {

Reply statusReply(int code, const std::string& reason) {
  return Reply::json(
      code,
      R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"try later","reason":")" +
          reason + R"(","code":)" + std::to_string(code) + "}");
}

}  // namespace

TEST_CASE("keep-alive connections are reused across requests", "[kube][transport]") {
  ScriptedServer server;
  auto client = clientFor(configFor(server));
  for (int i = 0; i < 3; ++i) server.enqueue(Reply::fixture(200, "tj-get.json"));
  for (int i = 0; i < 3; ++i) REQUIRE(client->get(kLlamaA).ok());
  CHECK(server.connectionsAccepted() == 1);
  const auto r = server.requests();
  CHECK(r[2].connection == 1);
}

TEST_CASE("a connection the server closes is replaced by a new one", "[kube][transport]") {
  ScriptedServer server;
  auto client = clientFor(configFor(server));
  Reply closing = Reply::fixture(200, "tj-get.json");
  closing.close_after = true;
  server.enqueue(closing);
  server.enqueue(Reply::fixture(200, "tj-get.json"));
  REQUIRE(client->get(kLlamaA).ok());
  REQUIRE(client->get(kLlamaA).ok());
  CHECK(server.connectionsAccepted() == 2);
  CHECK(client->retries() == 0);
}

TEST_CASE("429 is retried after the Retry-After the server asked for", "[kube][transport][retry]") {
  ScriptedServer server;
  auto client = clientFor(configFor(server));
  Reply busy = statusReply(429, "TooManyRequests");
  busy.headers.emplace_back("Retry-After", "1");
  server.enqueue(busy);
  server.enqueue(Reply::fixture(201, "tj-create.json"));
  const auto start = SteadyClock::now();
  // A POST too: a 429 means the server did not process it.
  auto created = client->create(resources::kTrainingJobs, "fixtures", json::object(), {});
  const auto elapsed = SteadyClock::now() - start;
  REQUIRE(created.ok());
  CHECK(server.requests().size() == 2);
  CHECK(client->retries() == 1);
  CHECK(elapsed >= milliseconds(1000));  // our own backoff would be 10..40 ms
}

TEST_CASE("5xx is retried for safe methods only", "[kube][transport][retry]") {
  struct Case {
    std::string name;
    int status;
    std::string method;
    std::size_t want_requests;
    bool want_ok;
  };
  std::vector<Case> cases = {
      {"503 on GET is retried", 503, "GET", 2, true},
      {"500 on GET is retried", 500, "GET", 2, true},
      {"504 on PUT is retried", 504, "PUT", 2, true},
      {"500 on POST is not (it may have been applied)", 500, "POST", 1, false},
      {"502 on PATCH is not", 502, "PATCH", 1, false},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      ScriptedServer server;
      auto client = clientFor(configFor(server));
      server.enqueue(statusReply(tc.status, "InternalError"));
      server.enqueue(Reply::fixture(200, "tj-get.json"));
      bool ok = false;
      if (tc.method == "GET") ok = client->get(kLlamaA).ok();
      if (tc.method == "PUT") ok = client->update(kLlamaA, json::object(), {}).ok();
      if (tc.method == "POST")
        ok = client->create(resources::kTrainingJobs, "fixtures", json::object(), {}).ok();
      if (tc.method == "PATCH") ok = client->patch(kLlamaA, json::object(), {}).ok();
      CHECK(ok == tc.want_ok);
      CHECK(server.requests().size() == tc.want_requests);
    }
  }
}

TEST_CASE("retries stop after max_retries with the last error", "[kube][transport][retry]") {
  ScriptedServer server;
  auto config = configFor(server);
  config.max_retries = 2;
  auto client = clientFor(config);
  server.setHandler([](const RecordedRequest&) { return statusReply(503, "ServiceUnavailable"); });
  auto got = client->get(kLlamaA);
  REQUIRE_FALSE(got.ok());
  CHECK(got.error().http_status == 503);
  CHECK(got.error().code == ErrorCode::Unavailable);
  CHECK_THAT(got.error().message, Catch::Contains("gave up after 3 attempts"));
  CHECK(server.requests().size() == 3);
}

TEST_CASE("a connection dropped mid-answer is retried for a GET", "[kube][transport][retry]") {
  ScriptedServer server;
  auto client = clientFor(configFor(server));
  Reply cut = Reply::fixture(200, "tj-list.json");
  cut.drop = Reply::Drop::MidBody;
  server.enqueue(cut);
  server.enqueue(Reply::fixture(200, "tj-list.json"));
  auto listed = client->list(resources::kTrainingJobs, "fixtures", {});
  REQUIRE(listed.ok());
  CHECK((*listed)["items"].size() == 3);
  CHECK(server.requests().size() == 2);
  CHECK(server.connectionsAccepted() == 2);
}

TEST_CASE("a POST whose fresh connection drops is not retried", "[kube][transport][retry]") {
  ScriptedServer server;
  auto client = clientFor(configFor(server));
  Reply dropped;
  dropped.drop = Reply::Drop::BeforeResponse;
  server.enqueue(dropped);
  auto created = client->create(resources::kTrainingJobs, "fixtures", json::object(), {});
  REQUIRE_FALSE(created.ok());
  CHECK(created.error().isTransport());
  CHECK(created.error().reason == "ConnectionClosedBeforeResponse");
  CHECK(server.requests().size() == 1);
}

TEST_CASE("a request on a kept-alive connection the server dropped goes out again on a new one",
          "[kube][transport][retry]") {
  ScriptedServer server;
  auto client = clientFor(configFor(server));
  server.enqueue(Reply::fixture(200, "tj-get.json"));
  Reply dropped;
  dropped.drop = Reply::Drop::BeforeResponse;  // as a server closing an idle connection
  server.enqueue(dropped);
  server.enqueue(Reply::fixture(201, "tj-create.json"));
  REQUIRE(client->get(kLlamaA).ok());
  // The POST rides the pooled connection, which closes without an answer: never processed.
  auto created = client->create(resources::kTrainingJobs, "fixtures", json::object(), {});
  REQUIRE(created.ok());
  const auto r = server.requests();
  REQUIRE(r.size() == 3);
  CHECK(r[1].connection == 1);
  CHECK(r[2].connection == 2);
}

TEST_CASE("a request that gets no answer times out", "[kube][transport]") {
  ScriptedServer server;
  auto config = configFor(server);
  config.request_timeout = milliseconds(300);
  config.max_retries = 0;
  auto client = clientFor(config);
  Reply silent = Reply::watchLines({});
  silent.hold_open = true;  // headers, then nothing
  server.enqueue(silent);
  const auto start = SteadyClock::now();
  auto got = client->get(kLlamaA);
  const auto elapsed = SteadyClock::now() - start;
  REQUIRE_FALSE(got.ok());
  CHECK(got.error().code == ErrorCode::Timeout);
  CHECK(elapsed >= milliseconds(300));
  CHECK(elapsed < milliseconds(3000));
}

TEST_CASE("connecting to a port nobody listens on fails as Unavailable", "[kube][transport]") {
  int port = 0;
  {
    ScriptedServer gone;
    port = gone.port();
  }
  ClientConfig config;
  config.server = "http://127.0.0.1:" + std::to_string(port);
  config.max_retries = 1;
  config.retry_base_delay = milliseconds(5);
  config.retry_max_delay = milliseconds(10);
  auto client = clientFor(config);
  auto got = client->get(kLlamaA);
  REQUIRE_FALSE(got.ok());
  CHECK(got.error().reason == "ConnectFailed");
  CHECK(got.error().code == ErrorCode::Unavailable);
  CHECK(client->retries() == 1);
}

TEST_CASE("a rotated token file is picked up on the next request", "[kube][transport][auth]") {
  TempDir dir;
  const std::string token_file = dir.write("token", "token-one\n");
  ScriptedServer server;
  auto config = configFor(server);
  config.token = "ignored-when-a-file-is-set";
  config.token_file = token_file;
  auto client = clientFor(config);
  server.setHandler([](const RecordedRequest&) { return Reply::fixture(200, "tj-get.json"); });
  REQUIRE(client->get(kLlamaA).ok());
  // The kubelet rotates projected tokens by writing a new file and renaming it in place.
  dir.write("token.new", "token-two\n");
  std::filesystem::rename(dir.file("token.new"), token_file);
  REQUIRE(client->get(kLlamaA).ok());
  const auto r = server.requests();
  CHECK(r[0].header("authorization") == "Bearer token-one");
  CHECK(r[1].header("authorization") == "Bearer token-two");
}

TEST_CASE("a 401 with a token file re-reads the token and tries once more",
          "[kube][transport][auth]") {
  TempDir dir;
  const std::string token_file = dir.write("token", "fresh");
  ScriptedServer server;
  auto config = configFor(server);
  config.token_file = token_file;
  auto client = clientFor(config);
  server.enqueue(Reply::fixture(401, "err-401-unauthorized.json"));
  server.enqueue(Reply::fixture(200, "tj-get.json"));
  server.enqueue(Reply::fixture(401, "err-401-unauthorized.json"));
  server.enqueue(Reply::fixture(401, "err-401-unauthorized.json"));
  REQUIRE(client->get(kLlamaA).ok());
  auto refused = client->get(kLlamaA);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == ErrorCode::Unauthorized);
  CHECK(server.requests().size() == 4);
}

TEST_CASE("one client serves many threads at once over its connection pool",
          "[kube][transport][threads]") {
  ScriptedServer server;
  auto config = configFor(server);
  config.max_idle_connections = 2;
  auto client = clientFor(config);
  server.setHandler([](const RecordedRequest& r) {
    // Echo the name asked for, so each thread can check it got its own answer.
    const std::string name = r.path.substr(r.path.rfind('/') + 1);
    return Reply::json(200, json{{"metadata", {{"name", name}}}}.dump());
  });
  constexpr int kThreads = 4;
  constexpr int kEach = 25;
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        const std::string name = "job-" + std::to_string(t) + "-" + std::to_string(i);
        auto got = client->get(ObjectRef{resources::kTrainingJobs, "fixtures", name, ""});
        if (!got.ok() || (*got)["metadata"]["name"] != name) ++wrong;
      }
    });
  }
  for (auto& t : threads) t.join();
  CHECK(wrong == 0);
  CHECK(server.requests().size() == kThreads * kEach);
  // At most one connection per thread at a time, and idle ones are reused.
  CHECK(server.connectionsAccepted() <= kThreads * 2);
}

TEST_CASE("figures: sequential GETs over one kept-alive connection", "[.bench][kube]") {
  ScriptedServer server;
  auto client = clientFor(configFor(server));
  const std::string body = readFixture("tj-get.json");
  server.setHandler([&](const RecordedRequest&) { return Reply::json(200, body); });
  const int n = 2000;
  const auto start = SteadyClock::now();
  for (int i = 0; i < n; ++i) REQUIRE(client->get(kLlamaA).ok());
  const double secs = std::chrono::duration<double>(SteadyClock::now() - start).count();
  CHECK(server.connectionsAccepted() == 1);
  WARN(n << " GETs in " << secs << " s: " << n / secs << " requests/s, " << secs / n * 1e6
         << " us each");
}
