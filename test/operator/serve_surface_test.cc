#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <regex>

#include "test/support/demo_serve.h"
#include "test/support/https_client.h"
#include "test/support/plain_http.h"
#include "test/support/promtool.h"
#include "test/support/serve_process.h"

using namespace troupe::testing;
using json = nlohmann::json;

namespace {

// The value of the first series of `name` whose labels contain every `labels` pair
// ("" matches none), from a /metrics text; -1 when there is none.
double series(const std::string& metrics, const std::string& name,
              const std::vector<std::string>& labels = {}) {
  std::istringstream in(metrics);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(name, 0) != 0) continue;
    const char next = line.size() > name.size() ? line[name.size()] : '\0';
    if (next != '{' && next != ' ') continue;
    bool all = true;
    for (const auto& l : labels) all &= line.find(l) != std::string::npos;
    if (all) return std::stod(line.substr(line.rfind(' ') + 1));
  }
  return -1;
}

}  // namespace

TEST_CASE("troupe serve started outside the sources has its CRDs and the built-in cluster",
          "[operator][serve][e2e]") {
  // No --crds, no --cluster, and a working directory with nothing in it.
  DemoServe serve(DemoServeOptions{{}});
  REQUIRE(serve.start());
  auto crds = serve.kubectl("get crd -o name");
  CHECK(crds.output ==
        "customresourcedefinition.apiextensions.k8s.io/gputypes.troupe.dev\n"
        "customresourcedefinition.apiextensions.k8s.io/podgroups.troupe.dev\n"
        "customresourcedefinition.apiextensions.k8s.io/queues.troupe.dev\n"
        "customresourcedefinition.apiextensions.k8s.io/trainingjobs.troupe.dev\n");
  auto nodes = serve.kubectl(
      "get nodes -o jsonpath='{range .items[*]}{.metadata.labels.troupe\\.dev/rack} "
      "{.status.allocatable.nvidia\\.com/gpu}{\"\\n\"}{end}'");
  // 4 racks x 4 nodes x 8 GPUs.
  CHECK(std::count(nodes.output.begin(), nodes.output.end(), '\n') == 16);
  CHECK(std::regex_search(nodes.output, std::regex("^rack-1 8\n")));
  CHECK(nodes.output.find("rack-4 8\n") != std::string::npos);
  CHECK(serve.stop() == 0);
}

TEST_CASE("troupe serve refuses a cluster file or CRD folder that is not there",
          "[operator][serve]") {
  const std::string troupe = troupeBinary();
  struct Case {
    std::string name;
    std::string args;
    std::string want;
  };
  std::vector<Case> cases = {
      {"a missing cluster file", "--cluster /nonexistent/cluster.yaml",
       "troupe serve: --cluster: file not found: /nonexistent/cluster.yaml"},
      {"a missing CRD folder", "--crds /nonexistent/crds",
       "troupe serve: --crds: not a directory: /nonexistent/crds"},
      {"sizing flags with a cluster file", "--cluster /etc/hostname --nodes 4",
       "troupe serve: --nodes, --gpus-per-node and --racks size the built-in cluster; they "
       "cannot be used with --cluster"},
      {"more racks than nodes", "--nodes 2 --racks 3",
       "troupe serve: --racks: Invalid value: 3: must be from 1 to the number of nodes (2)"},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      TempDir dir;
      auto result = runCommand(troupe + " serve --data-dir " + dir.path() + "/data " + tc.args);
      CHECK(result.exit_code == 2);
      CHECK(result.output == tc.want + "\n");
    }
  }
}

TEST_CASE("troupe serve's metrics pass promtool: the operator's and the API server's own",
          "[operator][serve][metrics][e2e]") {
  DemoServeOptions options;
  options.tokens =
      "admin-token-0123456789abcdef admin *\nalice-token-0123456789abcdef alice namespace:team-a\n";
  DemoServe serve(options);
  REQUIRE(serve.start());
  REQUIRE(serve.kubectl("apply -f -", demoQueuesYaml()).exit_code == 0);
  REQUIRE(serve.kubectl("apply -f -", demoRunningJobsYaml()).exit_code == 0);
  const std::string url = "http://127.0.0.1:" + std::to_string(serve.metricsPort()) + "/metrics";
  std::string text;
  // a-big (2 x 8) and a-extra (1 x 8) admitted: team-a holds 24 GPUs.
  CHECK(DemoServe::eventually([&] {
    text = plainHttp("GET", url).body;
    return series(text, "troupe_queue_allocated", {"queue=\"team-a\"", "nvidia.com/gpu"}) == 24;
  }));
  auto [rc, promtool] = promtoolCheck(text);
  INFO(promtool);
  CHECK(rc == 0);
  // The API server's requests by verb, resource and code: the creates above were POSTs.
  CHECK(series(text, "apiserver_request_total",
               {"code=\"201\"", "group=\"troupe.dev\"", "resource=\"trainingjobs\"",
                "verb=\"POST\""}) >= 2);
  CHECK(series(text, "apiserver_request_duration_seconds_count", {"verb=\"LIST\""}) > 0);
  // The in-process operator's and kubelets' informers watch through the API.
  CHECK(series(text, "apiserver_registered_watchers") > 0);
  CHECK(series(text, "troupe_store_commits_total") > 0);
  CHECK(series(text, "troupe_store_writes_total") >= series(text, "troupe_store_commits_total"));
  CHECK(series(text, "troupe_store_commit_duration_seconds_count") ==
        series(text, "troupe_store_commits_total"));
  CHECK(series(text, "troupe_leader") == 1);

  // The same text on the API server's port, for admins only, as kube-apiserver serves it.
  HttpCall call;
  call.path = "/metrics";
  CHECK(httpsRequest(serve.port(), call).status == 401);
  call.token = "alice-token-0123456789abcdef";
  auto tenant = httpsRequest(serve.port(), call);
  CHECK(tenant.status == 403);
  CHECK(tenant.body.find("User \\\"alice\\\" cannot get path \\\"/metrics\\\"") !=
        std::string::npos);
  call.token = "admin-token-0123456789abcdef";
  auto admin = httpsRequest(serve.port(), call);
  CHECK(admin.status == 200);
  CHECK(promtoolCheck(admin.body).first == 0);
  CHECK(series(admin.body, "troupe_queue_allocated", {"queue=\"team-a\"", "nvidia.com/gpu"}) == 24);
  CHECK(serve.stop() == 0);
}
