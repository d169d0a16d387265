// What a per-namespace token of troupe serve may do: the whole matrix of its scope, and the
// requests of a team reading its pods and their logs through real HTTPS.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "apiserver/auth/authorizer.h"
#include "test/support/in_process_server.h"

namespace troupe::apiserver {
namespace {

using json = nlohmann::json;
using testing::HttpCall;
using testing::InProcessServer;

TEST_CASE("a namespace's token may do what its team needs there, and nothing elsewhere",
          "[apiserver][auth]") {
  auth::Identity alice;
  alice.user = "alice";
  alice.ns = "team-a";
  struct Case {
    auth::Attributes request;
    bool want;
  };
  // {verb, group, resource, subresource, namespace, name}
  std::vector<Case> cases = {
      // Troupe's kinds in its namespace: everything.
      {{"create", "troupe.dev", "trainingjobs", "", "team-a", "j"}, true},
      {{"delete", "troupe.dev", "trainingjobs", "", "team-a", "j"}, true},
      {{"patch", "troupe.dev", "trainingjobs", "scale", "team-a", "j"}, true},
      {{"list", "troupe.dev", "podgroups", "", "team-a", ""}, true},
      {{"create", "troupe.dev", "trainingjobs", "", "team-b", "j"}, false},
      {{"list", "troupe.dev", "trainingjobs", "", "", ""}, false},  // every namespace
      // Queues: read only.
      {{"list", "troupe.dev", "queues", "", "", ""}, true},
      {{"watch", "troupe.dev", "queues", "", "", ""}, true},
      {{"patch", "troupe.dev", "queues", "", "", "team-a"}, false},
      // Its pods and their logs: read only.
      {{"list", "", "pods", "", "team-a", ""}, true},
      {{"watch", "", "pods", "", "team-a", ""}, true},
      {{"get", "", "pods", "", "team-a", "p"}, true},
      {{"get", "", "pods", "log", "team-a", "p"}, true},
      {{"create", "", "pods", "", "team-a", "p"}, false},
      {{"delete", "", "pods", "", "team-a", "p"}, false},
      {{"patch", "", "pods", "status", "team-a", "p"}, false},
      {{"create", "", "pods", "eviction", "team-a", "p"}, false},
      {{"create", "", "pods", "binding", "team-a", "p"}, false},
      {{"get", "", "pods", "status", "team-a", "p"}, false},
      {{"list", "", "pods", "", "team-b", ""}, false},
      {{"get", "", "pods", "log", "team-b", "p"}, false},
      {{"list", "", "pods", "", "", ""}, false},  // every namespace
      // Its Namespace object, and nothing else of the core group.
      {{"get", "", "namespaces", "", "", "team-a"}, true},
      {{"get", "", "namespaces", "", "", "team-b"}, false},
      {{"list", "", "namespaces", "", "", ""}, false},
      {{"list", "", "secrets", "", "team-a", ""}, false},
      {{"list", "", "services", "", "team-a", ""}, false},
      {{"list", "", "events", "", "team-a", ""}, false},
      {{"list", "", "nodes", "", "", ""}, false},
      {{"list", "scheduling.k8s.io", "priorityclasses", "", "", ""}, false},
  };
  for (const auto& tc : cases) {
    const auto& a = tc.request;
    DYNAMIC_SECTION(a.verb << " " << a.group << "/" << a.resource
                           << (a.subresource.empty() ? "" : "/" + a.subresource) << " in \"" << a.ns
                           << "\"") {
      CHECK(auth::allowed(alice, a) == tc.want);
    }
  }
  // An rbac identity gets nothing from these fixed rules.
  auth::Identity robot = alice;
  robot.rbac = true;
  CHECK_FALSE(auth::allowed(robot, {"list", "", "pods", "", "team-a", ""}));
}

TEST_CASE("a team lists its pods and reads their logs, and only its own", "[apiserver][auth]") {
  InProcessServer server;  // the tenant token's namespace is "fixtures"
  for (const char* ns : {"fixtures", "other"}) {
    REQUIRE(server.send("POST", "/api/v1/namespaces", json{{"metadata", {{"name", ns}}}}.dump())
                .status == 201);
    auto pod = json{{"metadata", {{"name", "trainer"}}},
                    {"spec", {{"containers", {{{"name", "c"}, {"image", "i"}}}}}}};
    REQUIRE(
        server.send("POST", std::string("/api/v1/namespaces/") + ns + "/pods", pod.dump()).status ==
        201);
  }
  auto as_tenant = [&](const std::string& path) {
    HttpCall call;
    call.path = path;
    call.token = InProcessServer::kTenantToken;
    return testing::httpsRequest(server.port(), call);
  };
  auto list = as_tenant("/api/v1/namespaces/fixtures/pods");
  REQUIRE(list.status == 200);
  CHECK(json::parse(list.body)["items"].size() == 1);
  CHECK(as_tenant("/api/v1/namespaces/fixtures/pods/trainer").status == 200);
  // Not on a node yet: an empty log, as the real server answers.
  CHECK(as_tenant("/api/v1/namespaces/fixtures/pods/trainer/log").status == 200);
  auto other = as_tenant("/api/v1/namespaces/other/pods/trainer/log");
  CHECK(other.status == 403);
  CHECK(json::parse(other.body)["message"] ==
        "pods \"trainer\" is forbidden: User \"alice\" cannot get resource \"pods/log\" in API "
        "group \"\" in the namespace \"other\"");
  CHECK(as_tenant("/api/v1/namespaces/other/pods").status == 403);
  CHECK(as_tenant("/api/v1/pods").status == 403);
}

}  // namespace
}  // namespace troupe::apiserver
