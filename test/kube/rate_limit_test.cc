#include <catch2/catch.hpp>

#include "kube/backoff.h"
#include "kube/rest_kube_client.h"
#include "kube/token_bucket.h"
#include "test/kube/support/client_for.h"

using namespace troupe::kube;
using namespace troupe::kube::testing;
using std::chrono::milliseconds;
using std::chrono::nanoseconds;

TEST_CASE("the token bucket lets a burst through, then spaces requests 1/qps apart",
          "[kube][rate-limit]") {
  TokenBucket bucket(/*qps=*/10, /*burst=*/3);
  const auto t0 = std::chrono::steady_clock::time_point{} + std::chrono::hours(1);
  // Three tokens in the bucket: no wait.
  CHECK(bucket.reserve(t0) == nanoseconds(0));
  CHECK(bucket.reserve(t0) == nanoseconds(0));
  CHECK(bucket.reserve(t0) == nanoseconds(0));
  // Empty: the 4th waits 1/10 s, the 5th (also reserved now) 2/10 s.
  CHECK(bucket.reserve(t0) == milliseconds(100));
  CHECK(bucket.reserve(t0) == milliseconds(200));
  // One second later 10 tokens have arrived, 2 were owed: 3 in the bucket again (burst cap)...
  const auto t1 = t0 + std::chrono::seconds(1);
  CHECK(bucket.reserve(t1) == nanoseconds(0));
  CHECK(bucket.reserve(t1) == nanoseconds(0));
  CHECK(bucket.reserve(t1) == nanoseconds(0));
  CHECK(bucket.reserve(t1) == milliseconds(100));
}

TEST_CASE("a qps of zero disables rate limiting", "[kube][rate-limit]") {
  TokenBucket bucket(0, 1);
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 100; ++i) CHECK(bucket.reserve(t0) == nanoseconds(0));
}

TEST_CASE("the client's requests are held to its qps", "[kube][rate-limit]") {
  ScriptedServer server;
  auto config = configFor(server);
  config.qps = 20;
  config.burst = 1;
  auto client = clientFor(config);
  server.setHandler([](const RecordedRequest&) { return Reply::fixture(200, "version.json"); });
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 6; ++i) REQUIRE(client->getPath("/version").ok());
  // 1 from the burst, then 5 more at 20/s: at least 5 * 50 ms.
  CHECK(std::chrono::steady_clock::now() - start >= milliseconds(250));
}

TEST_CASE("backoff doubles up to its cap with jitter in [d/2, d], and Retry-After wins",
          "[kube][backoff]") {
  Backoff backoff(milliseconds(100), milliseconds(1000), /*seed=*/42);
  struct Case {
    int attempt;
    long long want_min;
    long long want_max;
  };
  // d = min(1000, 100 * 2^attempt)
  const std::vector<Case> cases = {{0, 50, 100},  {1, 100, 200},  {2, 200, 400},
                                   {3, 400, 800}, {4, 500, 1000}, {20, 500, 1000}};
  for (const auto& tc : cases) {
    for (int i = 0; i < 20; ++i) {
      const auto d = backoff.delay(tc.attempt).count();
      CHECK(d >= tc.want_min);
      CHECK(d <= tc.want_max);
    }
  }
  CHECK(backoff.delay(0, std::chrono::seconds(3)) == milliseconds(3000));
}
