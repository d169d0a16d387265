#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "controllers/object_json.h"
#include "kube/kube_client.h"
#include "test/operator/cluster_fixture.h"

// Queues that belong to namespaces, end to end: troupe serve refuses what admission can see
// (a namespace naming a queue it may not use, a job moved to another queue), and the
// operator never admits what gets past it (a queue changed after the job was made), with
// the reason on the job and on `kubectl get q`.

using namespace troupe::operator_runtime::testing;
using Json = nlohmann::json;
namespace res = troupe::kube::resources;
namespace ctl = troupe::controllers;

namespace {

// org 16 GPUs over team-a (namespace default) and team-b (namespace other).
const char* kQueues = R"(apiVersion: troupe.dev/v1alpha1
kind: Queue
metadata: {name: org}
spec:
  resources:
    nvidia.com/gpu: {guaranteed: "16"}
---
apiVersion: troupe.dev/v1alpha1
kind: Queue
metadata: {name: team-a}
spec:
  parent: org
  namespaces: [default]
  resources:
    nvidia.com/gpu: {guaranteed: "8", limit: "8"}
---
apiVersion: troupe.dev/v1alpha1
kind: Queue
metadata: {name: team-b}
spec:
  parent: org
  namespaces: [other]
  resources:
    nvidia.com/gpu: {guaranteed: "8"}
)";

Json job(const std::string& name, const std::string& queue) {
  return {{"apiVersion", "troupe.dev/v1alpha1"},
          {"kind", "TrainingJob"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"spec",
           {{"queue", queue},
            {"replicas", 1},
            {"template",
             {{"metadata", {{"annotations", {{"troupe.dev/sim-duration-seconds", "600"}}}}},
              {"spec",
               {{"containers",
                 {{{"name", "trainer"},
                   {"image", "trainer:1"},
                   {"resources", {{"limits", {{"nvidia.com/gpu", "8"}}}}}}}}}}}}}}};
}

std::string pendingOf(ClusterFixture& c, const std::string& name, const std::string& field) {
  auto j = c.client().get({res::kTrainingJobs, "default", name, ""});
  return j ? ctl::stringAt(*j, "/status/pending/" + field) : "";
}

}  // namespace

TEST_CASE("a namespace cannot use another team's queue, and a queue changed later admits none",
          "[operator][e2e][admission]") {
  ClusterFixture c({.nodes = 2, .gpus_per_node = 8});
  c.kubectl("apply -f -", kQueues);

  // Refused at admission: team-b admits namespace other only; org takes no jobs.
  auto refused = c.client().create(res::kTrainingJobs, "default", job("sneaky", "team-b"), {});
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().http_status == 403);
  CHECK_THAT(refused.error().message,
             Catch::Contains("queue team-b does not admit namespace default (it admits other)"));
  // Server-side apply creates through the same admission.
  auto applied =
      c.client().patch({res::kTrainingJobs, "default", "sneaky", ""}, job("sneaky", "team-b"),
                       {troupe::kube::PatchType::Apply, "test", false, false});
  REQUIRE_FALSE(applied.ok());
  CHECK(applied.error().http_status == 403);
  CHECK_THAT(applied.error().message,
             Catch::Contains("queue team-b does not admit namespace default (it admits other)"));
  auto parent = c.client().create(res::kTrainingJobs, "default", job("to-org", "org"), {});
  REQUIRE_FALSE(parent.ok());
  CHECK(parent.error().http_status == 422);
  CHECK_THAT(parent.error().message,
             Catch::Contains("org is not a leaf queue; its leaves are team-a, team-b"));

  // first fills team-a (limit 8); second waits behind it.
  REQUIRE(c.client().create(res::kTrainingJobs, "default", job("first", "team-a"), {}).ok());
  REQUIRE(c.eventually([&] {
    auto j = c.client().get({res::kTrainingJobs, "default", "first", ""});
    return j && ctl::stringAt(*j, "/status/phase") == "Running";
  }));
  REQUIRE(c.client().create(res::kTrainingJobs, "default", job("second", "team-a"), {}).ok());
  REQUIRE(c.eventually([&] { return !pendingOf(c, "second", "reason").empty(); }));

  // Its queue cannot change.
  auto moved = c.client().patch({res::kTrainingJobs, "default", "second", ""},
                                {{"spec", {{"queue", "team-b"}}}},
                                {troupe::kube::PatchType::Merge, "test", false, false});
  REQUIRE_FALSE(moved.ok());
  CHECK(moved.error().http_status == 422);
  CHECK_THAT(moved.error().message, Catch::Contains("spec.queue"));
  CHECK_THAT(moved.error().message, Catch::Contains("field is immutable"));

  // team-a stops admitting namespace default: the waiting job is never admitted, and says
  // which queue and why; the running one keeps running.
  c.kubectl("patch queue team-a --type merge -p '{\"spec\":{\"namespaces\":[\"other\"]}}'");
  c.kubectl("delete trainingjob first --wait=false");
  REQUIRE(c.eventually([&] { return pendingOf(c, "second", "reason") == "Inadmissible"; }));
  CHECK(pendingOf(c, "second", "queue") == "team-a");
  CHECK(pendingOf(c, "second", "message") ==
        "queue team-a does not admit namespace default (it admits other)");
  std::this_thread::sleep_for(std::chrono::seconds(2));  // a few cycles with team-a empty
  auto second = c.client().get({res::kTrainingJobs, "default", "second", ""});
  REQUIRE(second);
  CHECK(ctl::stringAt(*second, "/status/phase") == "Queued");

  // A queue that cannot take jobs says why, in kubectl get q too.
  c.kubectl("apply -f -", R"(apiVersion: troupe.dev/v1alpha1
kind: Queue
metadata: {name: stray}
spec: {parent: gone}
)");
  REQUIRE(c.eventually([&] {
    auto out = c.kubectl("get q stray");
    return out.find("False") != std::string::npos &&
           out.find("ParentNotFound") != std::string::npos;
  }));
  CHECK(c.kubectl("get q org -o jsonpath={.status.conditions[0].status}") == "True");
}

TEST_CASE("with the webhook not answering, a queue oversubscribing its parent stops only itself",
          "[operator][e2e][admission]") {
  // Nothing checks the tree at admission here, as in a cluster whose webhook is down with
  // failurePolicy Ignore: extra, made after the teams, is stored though it does not fit.
  ClusterFixture c({.nodes = 2, .gpus_per_node = 8, .admission = false});
  c.kubectl("apply -f -", kQueues);
  // Creation times have whole seconds: extra must come a second after the teams.
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  c.kubectl("apply -f -", R"(apiVersion: troupe.dev/v1alpha1
kind: Queue
metadata: {name: extra}
spec:
  parent: org
  resources:
    nvidia.com/gpu: {guaranteed: "8"}
)");

  // org's children: team-a 8 + team-b 8 = 16 fits org's 16; + extra's 8 = 24 does not.
  auto condition = [&](const std::string& queue, const std::string& field) {
    return c.kubectl(
        fmt::format("get q {} -o jsonpath={{.status.conditions[0].{}}}", queue, field));
  };
  REQUIRE(c.eventually([&] { return condition("extra", "status") == "False"; }));
  CHECK(condition("extra", "reason") == "GuaranteeExceedsParent");
  CHECK(condition("extra", "message") ==
        "spec.resources[nvidia.com/gpu].guaranteed: Invalid value: \"8\": the guarantees of "
        "org's children would add up to 24 nvidia.com/gpu, more than org's 16");
  CHECK_THAT(c.kubectl("get q extra"), Catch::Contains("GuaranteeExceedsParent"));
  for (const char* q : {"org", "team-a", "team-b"}) {
    INFO("queue " << q);
    CHECK(condition(q, "status") == "True");
  }

  // team-a still admits; a job of extra waits and says why.
  REQUIRE(c.client().create(res::kTrainingJobs, "default", job("team-job", "team-a"), {}).ok());
  REQUIRE(c.client().create(res::kTrainingJobs, "default", job("extra-job", "extra"), {}).ok());
  CHECK(c.eventually([&] {
    auto j = c.client().get({res::kTrainingJobs, "default", "team-job", ""});
    return j && ctl::stringAt(*j, "/status/phase") == "Running";
  }));
  REQUIRE(c.eventually([&] { return pendingOf(c, "extra-job", "reason") == "Inadmissible"; }));
  CHECK_THAT(pendingOf(c, "extra-job", "message"),
             Catch::StartsWith("queue extra cannot take jobs (GuaranteeExceedsParent): "));
}
