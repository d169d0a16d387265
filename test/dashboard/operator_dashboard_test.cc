#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "test/support/child_process.h"
#include "test/support/demo_serve.h"
#include "test/support/https_client.h"
#include "test/support/plain_http.h"
#include "test/support/promtool.h"
#include "test/support/serve_process.h"

using namespace troupe::testing;
using json = nlohmann::json;

namespace {

constexpr const char* kAdmin = "admin-token-0123456789abcdef";
constexpr const char* kTenant = "alice-token-0123456789abcdef";  // namespace team-a only

std::vector<std::pair<std::string, std::string>> bearer(const std::string& token) {
  return {{"Authorization", "Bearer " + token}};
}

}  // namespace

TEST_CASE("troupe operator serves the dashboard and reads the API as each viewer",
          "[dashboard][operator][metrics][e2e]") {
  // troupe serve stands in for the cluster's API server; the operator runs beside it as
  // it does in a cluster, with its metrics and the dashboard on addresses of their own.
  DemoServeOptions options;
  options.args = {"--no-operator", "--nodes", "2", "--racks", "1", "--gpus-per-node", "8"};
  options.tokens = std::string(kAdmin) + " admin *\n" + kTenant + " alice namespace:team-a\n";
  DemoServe serve(options);
  REQUIRE(serve.start());
  const int metrics_port = freePort();
  const int dashboard_port = freePort();
  ChildProcess op({troupeBinary(), "operator", "--kubeconfig", serve.kubeconfig(), "--state-dir",
                   serve.dir() + "/operator", "--leader-elect=false", "--metrics-addr",
                   "127.0.0.1:" + std::to_string(metrics_port), "--health-addr", "127.0.0.1:0",
                   "--dashboard-addr", "127.0.0.1:" + std::to_string(dashboard_port)},
                  serve.dir() + "/operator.log");
  REQUIRE(serve.kubectl("apply -f -", demoQueuesYaml()).exit_code == 0);
  REQUIRE(serve.kubectl("apply -f -", demoRunningJobsYaml()).exit_code == 0);

  // The operator's metrics pass promtool once it has admitted work (a-big and a-extra).
  const std::string metrics = "http://127.0.0.1:" + std::to_string(metrics_port) + "/metrics";
  std::string text;
  bool admitted = DemoServe::eventually([&] {
    text = plainHttp("GET", metrics).body;
    return text.find("troupe_queue_allocated{queue=\"team-a\",resource=\"nvidia.com/gpu\"} 16") !=
           std::string::npos;
  });
  INFO(op.log());
  REQUIRE(admitted);
  auto [rc, promtool] = promtoolCheck(text);
  INFO(promtool);
  CHECK(rc == 0);
  CHECK(text.find("troupe_caches_synced 1\n") != std::string::npos);

  const std::string base = "http://127.0.0.1:" + std::to_string(dashboard_port);
  auto page = plainHttp("GET", base + "/dashboard/");
  CHECK(page.status == 200);
  CHECK(page.body.find("<title>Troupe</title>") != std::string::npos);

  const std::string queues = base + "/apis/troupe.dev/v1alpha1/queues";
  // No token: refused by the dashboard itself, never sent on with the operator's.
  auto anonymous = plainHttp("GET", queues);
  CHECK(anonymous.status == 401);
  CHECK_THAT(anonymous.body, Catch::Contains("a bearer token is required"));
  // A token the API server does not know: its own 401.
  CHECK(plainHttp("GET", queues, bearer("unknown-token-0123456789")).status == 401);
  auto listed = plainHttp("GET", queues, bearer(kAdmin));
  CHECK(listed.status == 200);
  CHECK(json::parse(listed.body)["items"].size() == 3);
  // The viewer's own rights apply: a tenant reads queues but not nodes.
  CHECK(plainHttp("GET", queues, bearer(kTenant)).status == 200);
  CHECK(plainHttp("GET", base + "/api/v1/nodes", bearer(kTenant)).status == 403);
  CHECK(plainHttp("GET", base + "/api/v1/nodes", bearer(kAdmin)).status == 200);
  // Read-only.
  CHECK(plainHttp("POST", queues, bearer(kAdmin)).status == 405);
  CHECK(plainHttp("DELETE", queues + "/team-a", bearer(kAdmin)).status == 405);
  CHECK(serve.kubectl("get queue team-a").exit_code == 0);

  // A watch streams through: the queues as ADDED events, then it stays open.
  auto watched = plainHttp("GET", queues + "?watch=1&resourceVersion=0", bearer(kAdmin), 3);
  CHECK(watched.status == 200);
  CHECK(watched.body.find("\"type\":\"ADDED\"") != std::string::npos);
  CHECK(watched.body.find("\"name\":\"team-b\"") != std::string::npos);
  CHECK(op.stop() == 0);
}
