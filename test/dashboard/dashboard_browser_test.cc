#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <set>
#include <tuple>

#include "test/support/chromium_page.h"
#include "test/support/demo_serve.h"

using namespace troupe::testing;
using json = nlohmann::json;

namespace {

// Phases of team-a's jobs, "a-big=Running a-extra=Running ...", as kubectl reads them.
std::string phases(const DemoServe& serve) {
  return serve
      .kubectl(
          "get tj -n team-a -o jsonpath='{range .items[*]}{.metadata.name}="
          "{.status.phase} {end}'")
      .output;
}

// Which job holds which GPU, from the API: (node, index, "ns/job") for every pod not done.
std::set<std::tuple<std::string, int, std::string>> gpusFromApi(const DemoServe& serve) {
  std::set<std::tuple<std::string, int, std::string>> held;
  json pods = json::parse(serve.kubectl("get pods -A -o json").output);
  for (const auto& pod : pods["items"]) {
    const std::string phase = pod["status"].value("phase", "");
    if (phase == "Succeeded" || phase == "Failed" || !pod["spec"].contains("nodeName")) continue;
    const std::string indices = pod["metadata"]["annotations"].value("troupe.dev/gpu-indices", "");
    const std::string job = pod["metadata"]["namespace"].get<std::string>() + "/" +
                            pod["metadata"]["labels"]["troupe.dev/job-name"].get<std::string>();
    std::stringstream in(indices);
    std::string i;
    while (std::getline(in, i, ',')) held.emplace(pod["spec"]["nodeName"], std::stoi(i), job);
  }
  return held;
}

std::set<std::tuple<std::string, int, std::string>> gpusOnPage(ChromiumPage& page) {
  auto cells = page.evaluate(
      "[...document.querySelectorAll('.gpu.held')].map(e => "
      "[e.closest('.node').dataset.node, Number(e.dataset.gpu), e.dataset.job])");
  REQUIRE(cells);
  std::set<std::tuple<std::string, int, std::string>> held;
  for (const auto& c : *cells) held.emplace(c[0], c[1], c[2]);
  return held;
}

// A lone pod of queue team-b asking half of one GPU, running for a day of simulated time.
std::string halfGpuPodYaml(const std::string& name) {
  return R"(apiVersion: v1
kind: Pod
metadata:
  name: )" +
         name + R"(
  namespace: team-b
  labels: {troupe.dev/queue: team-b}
  annotations: {troupe.dev/gpu-fraction: "0.5", troupe.dev/sim-duration-seconds: "86400"}
spec:
  schedulerName: troupe
  restartPolicy: Never
  containers:
  - {name: eval, image: registry.example.com/eval:1, resources: {requests: {cpu: "1"}}}
---
)";
}

std::string attribute(ChromiumPage& page, const std::string& selector, const std::string& name) {
  auto value = page.evaluate("(document.querySelector('" + selector + "') || {dataset: {}})" +
                             ".dataset." + name + " || ''");
  return value && value->is_string() ? value->get<std::string>() : "";
}

}  // namespace

TEST_CASE("the dashboard shows the queues, jobs and GPUs of a running troupe serve, live",
          "[dashboard][browser][e2e]") {
  DemoServe serve;
  REQUIRE(serve.start());
  REQUIRE(serve.kubectl("apply -f -", demoQueuesYaml()).exit_code == 0);
  REQUIRE(serve.kubectl("apply -f -", demoRunningJobsYaml()).exit_code == 0);
  REQUIRE(DemoServe::eventually([&] { return phases(serve) == "a-big=Running a-extra=Running "; }));
  // team-a is now at its limit of 24: both new jobs wait, the high-priority one first.
  REQUIRE(serve.kubectl("apply -f -", demoWaitingJobsYaml()).exit_code == 0);
  REQUIRE(DemoServe::eventually([&] {
    return serve.kubectl("get tj -n team-a -o jsonpath='{.items[*].status.pending.reason}'")
               .output == "QueueAtLimit QueueAtLimit";
  }));

  const std::string shots = TROUPE_SCREENSHOT_DIR;
  std::filesystem::create_directories(shots);
  auto started = ChromiumPage::start(shots + "/chromium.log");
  REQUIRE(started);
  ChromiumPage& page = **started;
  const std::string url = "https://127.0.0.1:" + std::to_string(serve.port()) + "/dashboard/";

  // Without a token the page asks for one, and a token the API refuses is said to be so.
  REQUIRE(page.navigate(url));
  REQUIRE(
      page.waitFor("document.body.dataset.state === 'signed-out' && "
                   "!document.getElementById('login').hidden"));
  REQUIRE(
      page.evaluate("document.getElementById('token').value = 'not-a-token-0123456789';"
                    "document.getElementById('login-form').requestSubmit(); true"));
  CHECK(page.waitFor("document.getElementById('login-error').textContent.includes('401')"));
  CHECK(page.screenshot(shots + "/dashboard-sign-in.png"));
  REQUIRE(page.evaluate("document.getElementById('token').value = '" + serve.adminToken() +
                        "'; document.getElementById('login-form').requestSubmit(); true"));
  REQUIRE(page.waitFor("document.body.dataset.state === 'live'"));
  auto shown = page.evaluate(
      "[getComputedStyle(document.getElementById('login')).display, "
      "getComputedStyle(document.getElementById('main')).display]");
  REQUIRE(shown);
  CHECK((*shown)[0] == "none");  // the form gone, the dashboard there
  CHECK((*shown)[1] != "none");

  // The queue tree, with the numbers of each queue's status: team-a holds 24 of its 16
  // guaranteed (limit 24), borrowing the 8 that team-b, with 16 idle, lends it.
  const std::string team_a =
      ".queue[data-queue=\"team-a\"] .resource[data-resource=\"nvidia.com/gpu\"]";
  CHECK(page.waitFor("document.querySelector('" + team_a + "')?.dataset.allocated === '24'"));
  CHECK(attribute(page, team_a, "guaranteed") == "16");
  CHECK(attribute(page, team_a, "limit") == "24");
  json team_a_status = json::parse(serve.kubectl("get queue team-a -o json").output)["status"];
  CHECK(attribute(page, team_a, "fairShare") == team_a_status["fairShare"]["nvidia.com/gpu"]);
  CHECK(attribute(page, ".queue[data-queue=\"team-b\"] .resource", "limit") == "none");
  CHECK(attribute(page, ".queue[data-queue=\"team-a\"]", "depth") == "1");
  CHECK(attribute(page, ".borrow[data-borrower=\"team-a\"][data-lender=\"team-b\"]", "amount") ==
        "8");

  // Jobs: the waiting ones in line (priority first), with the numbers behind their reason.
  const std::string urgent = "tr[data-job=\"team-a/a-urgent\"]";
  const std::string late = "tr[data-job=\"team-a/a-late\"]";
  CHECK(attribute(page, urgent, "position") == "1");
  CHECK(attribute(page, late, "position") == "2");
  CHECK(attribute(page, late, "reason") == "QueueAtLimit");
  CHECK(attribute(page, "tr[data-job=\"team-a/a-big\"]", "phase") == "Running");
  auto numbers = page.evaluate("[...document.querySelectorAll('" + late +
                               " .pending-numbers span')].map(e => e.textContent).join(', ')");
  REQUIRE(numbers);
  CHECK(*numbers == "request 8, allocated 24, guaranteed 16, fair share 24, limit 24");

  // The GPU map: every GPU a pod holds, on its node, under its job, and no other.
  auto from_api = gpusFromApi(serve);
  CHECK(from_api.size() == 24);
  CHECK(gpusOnPage(page) == from_api);
  CHECK(attribute(page, ".rack[data-rack=\"rack-2\"]", "block") == "block-1");
  CHECK(page.screenshot(shots + "/dashboard.png"));

  // Live: a-extra ends, team-a drops to 16, a-urgent is admitted; the open page follows
  // through its watches, without a reload.
  REQUIRE(page.evaluate("window.notReloaded = true"));
  REQUIRE(serve.kubectl("delete tj -n team-a a-extra").exit_code == 0);
  CHECK(page.waitFor("document.querySelector('" + urgent +
                         "')?.dataset.phase === 'Running' && "
                         "document.querySelector('" +
                         late +
                         "')?.dataset.position === '1' && "
                         "!document.querySelector('tr[data-job=\"team-a/a-extra\"]')",
                     std::chrono::seconds(30)));
  auto same_page = page.evaluate("window.notReloaded === true");
  CHECK((same_page && *same_page == true));
  CHECK(DemoServe::eventually([&] { return gpusOnPage(page) == gpusFromApi(serve); }));
  CHECK(page.screenshot(shots + "/dashboard-after-a-job-ends.png"));

  // Two pods of team-b asking half a GPU each share one GPU (0.5 + 0.5 = 1): the page draws
  // that GPU as shared, both pods in its title, a band of each pod's colour.
  REQUIRE(
      serve.kubectl("apply -f -", halfGpuPodYaml("half-1") + halfGpuPodYaml("half-2")).exit_code ==
      0);
  const std::string shared = "document.querySelectorAll('.gpu.shared')";
  REQUIRE(page.waitFor(shared + ".length === 1 && " + shared + "[0].dataset.holders === '2'"));
  CHECK(attribute(page, ".gpu.shared", "share") == "1");
  auto drawn = page.evaluate("[" + shared + "[0].title, getComputedStyle(" + shared +
                             "[0]).backgroundImage]");
  REQUIRE(drawn);
  INFO(drawn->dump());
  CHECK_THAT((*drawn)[0].get<std::string>(),
             Catch::Contains("team-b/half-1 (pod half-1, 0.5 of it); team-b/half-2 (pod half-2, "
                             "0.5 of it); 0 free"));
  CHECK_THAT((*drawn)[1].get<std::string>(), Catch::StartsWith("linear-gradient"));
  CHECK(attribute(page, "li[data-job=\"team-b/half-1\"]", "gpus") == "0.5");
  CHECK(page.screenshot(shots + "/dashboard-shared-gpu.png"));
}
