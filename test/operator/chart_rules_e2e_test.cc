#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <set>

#include "controllers/object_json.h"
#include "kube/kube_client.h"
#include "test/operator/cluster_fixture.h"

// The chart's RBAC rules are the operator's requests: every request of the operator is
// allowed by them (the fixture checks that after every end-to-end test), and every rule is
// used by some request, so nothing is granted that the code does not need. The story below
// makes the operator do each kind of request it makes: lead on its Lease, admit and place
// gangs (pods, bindings, the headless Service, the PodGroup, status, events), preempt
// (a pod deleted and looked up while it terminates, the PodGroup annotated), delete a
// finished job after its TTL, say why a lone pod waits in its condition, mirror queue usage.

using namespace troupe::operator_runtime::testing;
using Json = nlohmann::json;
namespace res = troupe::kube::resources;
namespace ctl = troupe::controllers;

namespace {

std::string job(const std::string& name, int replicas, const std::string& priority_class,
                const std::string& extra_spec, const std::string& duration) {
  return fmt::format(R"(apiVersion: troupe.dev/v1alpha1
kind: TrainingJob
metadata:
  name: {}
  namespace: default
spec:
  queue: team-a
  replicas: {}
  priorityClassName: {}
{}  template:
    metadata:
      annotations:
        troupe.dev/sim-exit-code: "0"
        troupe.dev/sim-duration-seconds: "{}"
    spec:
      containers:
      - name: trainer
        image: trainer:1
        resources:
          limits:
            nvidia.com/gpu: "8"
---
)",
                     name, replicas, priority_class, extra_spec, duration);
}

const char* kSetup = R"(apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: high
value: 1000
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: low
value: 10
---
apiVersion: troupe.dev/v1alpha1
kind: Queue
metadata:
  name: team-a
spec:
  resources:
    nvidia.com/gpu:
      guaranteed: "16"
---
)";

const char* kLonePod = R"(apiVersion: v1
kind: Pod
metadata:
  name: solo
  namespace: default
  labels:
    troupe.dev/queue: team-a
spec:
  schedulerName: troupe
  containers:
  - name: trainer
    image: trainer:1
    resources:
      limits:
        nvidia.com/gpu: "16"
---
)";

}  // namespace

TEST_CASE("the operator under the chart's ServiceAccount uses every rule the chart grants it",
          "[operator][e2e][rbac]") {
  ClusterFixture c({.nodes = 2, .gpus_per_node = 8, .leader_elect = true});
  const auto grants = grantsOf(c.chart());
  REQUIRE_FALSE(grants.empty());

  c.kubectl("apply -f -", kSetup);
  // 2 x 8 = 16 GPUs: the whole cluster, at low priority, running long.
  c.kubectl("apply -f -", job("low", 2, "low", "", "600"));
  REQUIRE(c.eventually([&] { return c.jobPhase("low") == "Running"; }));
  // A high-priority gang of 8 preempts the low one (a whole gang: all 16 GPUs freed).
  c.kubectl("apply -f -", job("urgent", 1, "high", "", "600"));
  REQUIRE(c.eventually([&] { return c.jobPhase("urgent") == "Running"; }));
  // A short job in the 8 GPUs left runs, succeeds and is deleted at once (TTL 0).
  c.kubectl("apply -f -", job("short", 1, "high", "  ttlSecondsAfterFinished: 0\n", "1"));
  REQUIRE(c.eventually(
      [&] {
        return !c.client().get({res::kTrainingJobs, "default", "short", ""});
      },
      std::chrono::seconds(30)));
  // A plain pod naming its queue that waits (no node has 16 GPUs) is told why in its
  // PodScheduled condition (pods/status).
  c.kubectl("apply -f -", kLonePod);

  auto used = [&](const Grant& g, const std::vector<Decision>& decisions) {
    for (const auto& d : decisions)
      if (d.user == c.chart().user() && d.allowed &&
          troupe::apiserver::auth::ruleAllows(g.rule, d.request))
        return true;
    return false;
  };
  auto unused = [&] {
    auto decisions = c.decisions();
    std::string out;
    for (const auto& g : grants)
      if (!used(g, decisions)) out += "\n  " + g.describe();
    return out;
  };
  // The Lease is renewed every 2 s; the rest is done by now or soon after.
  c.eventually([&] { return unused().empty(); }, std::chrono::seconds(20));
  const auto left = unused();
  INFO("granted by the chart but never used by the operator:" << left);
  CHECK(left.empty());

  std::set<std::string> denials;
  for (const auto& d : c.decisions())
    if (d.user == c.chart().user() && !d.allowed) denials.insert(d.describe());
  std::string denied;
  for (const auto& d : denials) denied += "\n  " + d;
  INFO("requested by the operator but not allowed by the chart:" << denied);
  CHECK(denied.empty());
}
