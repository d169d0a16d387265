#include <catch2/catch.hpp>

#include <thread>

#include "kube/leader_elector.h"
#include "test/kube/support/client_for.h"
#include "test/kube/support/lease_endpoint.h"
#include "test/kube/support/scripted_server.h"

using namespace troupe;
using namespace troupe::kube;
using namespace troupe::kube::testing;
using std::chrono::seconds;

namespace {

// One candidate: its own client, callbacks counted.
struct Candidate {
  std::unique_ptr<RestKubeClient> client;
  std::unique_ptr<LeaderElector> elector;
  int started = 0;
  int stopped = 0;
  std::vector<std::string> leaders_seen;

  Candidate(const ScriptedServer& server, const TimeSource& time, const std::string& identity) {
    auto config = configFor(server);
    config.max_retries = 0;  // a failed attempt is the elector's business
    client = clientFor(config);
    LeaderElectionConfig lec;
    lec.lease_namespace = "fixtures";
    lec.lease_name = "troupe-operator-leader";
    lec.identity = identity;
    lec.lease_duration = seconds(15);
    lec.renew_deadline = seconds(10);
    lec.retry_period = seconds(2);
    lec.on_started_leading = [this] { ++started; };
    lec.on_stopped_leading = [this] { ++stopped; };
    lec.on_new_leader = [this](const std::string& who) { leaders_seen.push_back(who); };
    auto made = LeaderElector::create(*client, time, lec);
    TROUPE_CHECK(made.ok(), "elector config");
    elector = std::move(*made);
  }
};

Time at2025() { return Time{} + std::chrono::hours(24 * 20089); }  // 2025-01-01T00:00:00Z

}  // namespace

TEST_CASE("two electors: one leads, the other takes over when the leader stops renewing",
          "[kube][leader]") {
  ScriptedServer server;
  LeaseEndpoint endpoint(server);
  FakeTimeSource time(at2025());
  Candidate a(server, time, "operator-a");
  Candidate b(server, time, "operator-b");

  // a creates the Lease.
  CHECK(a.elector->step());
  CHECK(a.started == 1);
  auto lease = endpoint.lease();
  CHECK(lease["spec"]["holderIdentity"] == "operator-a");
  CHECK(lease["spec"]["leaseDurationSeconds"] == 15);
  CHECK(lease["spec"]["leaseTransitions"] == 0);
  CHECK(lease["spec"]["acquireTime"] == "2025-01-01T00:00:00.000000Z");

  // b sees a valid lease held by a.
  CHECK_FALSE(b.elector->step());
  CHECK(b.elector->observedLeader() == "operator-a");
  CHECK(b.started == 0);

  // a renews at +2 s; acquireTime stays, renewTime moves.
  time.advance(seconds(2));
  CHECK(a.elector->step());
  lease = endpoint.lease();
  CHECK(lease["spec"]["acquireTime"] == "2025-01-01T00:00:00.000000Z");
  CHECK(lease["spec"]["renewTime"] == "2025-01-01T00:00:02.000000Z");
  CHECK(a.started == 1);  // no second start while leading

  // b saw the renewal at +4 s; 14 s later (+18 s) the lease is still valid (15 s)...
  time.advance(seconds(2));
  CHECK_FALSE(b.elector->step());
  time.advance(seconds(14));
  CHECK_FALSE(b.elector->step());
  // ...at +20 s, 16 s after b last saw it change, b takes it over.
  time.advance(seconds(2));
  CHECK(b.elector->step());
  CHECK(b.started == 1);
  lease = endpoint.lease();
  CHECK(lease["spec"]["holderIdentity"] == "operator-b");
  CHECK(lease["spec"]["leaseTransitions"] == 1);
  CHECK(lease["spec"]["acquireTime"] == "2025-01-01T00:00:20.000000Z");

  // a wakes up, sees b holding the lease and stops leading at once.
  CHECK_FALSE(a.elector->step());
  CHECK(a.stopped == 1);
  CHECK_FALSE(a.elector->isLeader());
  CHECK(b.elector->isLeader());
  CHECK(a.leaders_seen == std::vector<std::string>{"operator-a", "operator-b"});
  CHECK(b.leaders_seen == std::vector<std::string>{"operator-a", "operator-b"});
}

TEST_CASE("a leader that cannot renew within the renew deadline stops leading", "[kube][leader]") {
  ScriptedServer server;
  LeaseEndpoint endpoint(server);
  FakeTimeSource time(at2025());
  Candidate a(server, time, "operator-a");
  REQUIRE(a.elector->step());

  endpoint.setAvailable(false);
  time.advance(seconds(2));
  CHECK(a.elector->step());  // failed, but the last renewal is only 2 s old
  CHECK_FALSE(a.elector->lastError().empty());
  time.advance(seconds(7));
  CHECK(a.elector->step());  // 9 s
  CHECK(a.stopped == 0);
  time.advance(seconds(1));
  CHECK_FALSE(a.elector->step());  // 10 s without a renewal: the deadline
  CHECK(a.stopped == 1);

  // Once the server is back, a (still the recorded holder) takes the lease again.
  endpoint.setAvailable(true);
  time.advance(seconds(2));
  CHECK(a.elector->step());
  CHECK(a.started == 2);
}

TEST_CASE("a stale resourceVersion on renew is a conflict, not leadership", "[kube][leader]") {
  ScriptedServer server;
  FakeTimeSource time(at2025());
  Candidate a(server, time, "operator-a");
  // The recorded lease, held by another candidate. The first sight of a record starts its
  // clock: it is valid for 15 s from now, whatever its renewTime says.
  server.enqueue(Reply::fixture(200, "lease-create.json"));
  CHECK_FALSE(a.elector->step());
  CHECK(a.elector->lastError() == "lease held by troupe-operator-0_6f1c");
  CHECK(a.elector->observedLeader() == "troupe-operator-0_6f1c");
  // 16 s later the same record is expired; the takeover PUT meets the recorded 409: someone
  // wrote the Lease between our GET and PUT.
  time.advance(seconds(16));
  server.enqueue(Reply::fixture(200, "lease-create.json"));
  server.enqueue(Reply::fixture(409, "err-409-lease-conflict.json"));
  CHECK_FALSE(a.elector->step());
  CHECK_THAT(a.elector->lastError(), Catch::Contains("the object has been modified"));
  CHECK(a.started == 0);
  const auto r = server.requests();
  REQUIRE(r.size() == 3);
  CHECK(r[2].method == "PUT");
  CHECK(r[2].path ==
        "/apis/coordination.k8s.io/v1/namespaces/fixtures/leases/troupe-operator-leader");
  const auto sent = nlohmann::json::parse(r[2].body);
  CHECK(sent["metadata"]["resourceVersion"] == "237");
  CHECK(sent["spec"]["holderIdentity"] == "operator-a");
  CHECK(sent["spec"]["leaseTransitions"] == 1);
}

TEST_CASE("releasing on shutdown hands the lease over without waiting for it to expire",
          "[kube][leader]") {
  ScriptedServer server;
  LeaseEndpoint endpoint(server);
  FakeTimeSource time(at2025());
  Candidate a(server, time, "operator-a");
  Candidate b(server, time, "operator-b");
  REQUIRE(a.elector->step());
  CHECK_FALSE(b.elector->step());

  REQUIRE(a.elector->release().ok());
  CHECK(a.stopped == 1);
  CHECK(endpoint.lease()["spec"]["holderIdentity"] == "");
  time.advance(seconds(1));
  CHECK(b.elector->step());
  CHECK(endpoint.lease()["spec"]["holderIdentity"] == "operator-b");
  CHECK(endpoint.lease()["spec"]["leaseTransitions"] == 1);
}

TEST_CASE("run() keeps renewing on its thread and releases when stopped", "[kube][leader]") {
  ScriptedServer server;
  LeaseEndpoint endpoint(server);
  SystemTimeSource time;
  auto client = clientFor(configFor(server));
  LeaderElectionConfig lec;
  lec.lease_namespace = "fixtures";
  lec.lease_name = "troupe-operator-leader";
  lec.identity = "operator-a";
  lec.lease_duration = seconds(3);
  lec.renew_deadline = seconds(2);
  lec.retry_period = seconds(1);
  std::atomic<int> started{0};
  lec.on_started_leading = [&] { ++started; };
  auto elector = LeaderElector::create(*client, time, lec);
  REQUIRE(elector.ok());
  std::jthread runner([&](std::stop_token stop) { (*elector)->run(stop); });
  REQUIRE(server.waitForRequests(2, std::chrono::milliseconds(5000)));
  runner.request_stop();
  runner.join();
  CHECK(started == 1);
  CHECK(endpoint.lease()["spec"]["holderIdentity"] == "");
}

TEST_CASE("leader election settings are checked", "[kube][leader]") {
  ScriptedServer server;
  auto client = clientFor(configFor(server));
  FakeTimeSource time;
  struct Case {
    std::string name;
    std::function<void(LeaderElectionConfig&)> change;
    std::string want_field;
  };
  std::vector<Case> cases = {
      {"no lease name", [](auto& c) { c.lease_name.clear(); }, "leaderElection.leaseName"},
      {"no identity", [](auto& c) { c.identity.clear(); }, "leaderElection.identity"},
      {"renew deadline not above the retry period",
       [](auto& c) { c.renew_deadline = c.retry_period; }, "leaderElection.renewDeadline"},
      {"lease duration not above the renew deadline",
       [](auto& c) { c.lease_duration = c.renew_deadline; }, "leaderElection.leaseDuration"},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      LeaderElectionConfig config;
      config.lease_namespace = "ns";
      config.lease_name = "l";
      config.identity = "me";
      tc.change(config);
      auto made = LeaderElector::create(*client, time, config);
      REQUIRE_FALSE(made.ok());
      CHECK(made.error().field_path == tc.want_field);
    }
  }
}
