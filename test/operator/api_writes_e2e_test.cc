// What the operator writes to the API for a gang, counted from `troupe serve`'s record of
// every request (its authorization log): a gang of one costs what kube-scheduler's pod
// costs, its binding and at most one Event; a gang of N costs N bindings and a number of
// other writes that does not grow with N.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <thread>
#include <vector>

#include "controllers/object_json.h"
#include "kube/kube_client.h"
#include "test/operator/cluster_fixture.h"
#include "test/operator/manifests.h"

using namespace troupe::operator_runtime::testing;
using Json = nlohmann::json;
namespace res = troupe::kube::resources;
namespace ctl = troupe::controllers;

namespace {

bool isWrite(const std::string& verb) {
  return verb == "create" || verb == "update" || verb == "patch" || verb == "delete" ||
         verb == "deletecollection";
}

// The operator's writes in namespace "default" so far, by what they wrote ("create
// pods/binding", "patch podgroups/status"), and each one for the failure message.
struct NamespaceWrites {
  std::map<std::string, int> by_kind;
  std::vector<std::string> all;
  int count(const std::string& kind) const {
    auto it = by_kind.find(kind);
    return it == by_kind.end() ? 0 : it->second;
  }
  int total() const { return static_cast<int>(all.size()); }
};

NamespaceWrites operatorWrites(ClusterFixture& c) {
  NamespaceWrites out;
  for (const auto& d : c.decisions()) {
    if (d.user != c.chart().user() || !isWrite(d.request.verb) || d.request.ns != "default")
      continue;
    // The server's check that the writer of an owner reference may block its owner's
    // deletion, made within the create it belongs to: not a request of its own.
    if (d.request.subresource == "finalizers") continue;
    auto kind = d.request.verb + " " + d.request.resource;
    if (!d.request.subresource.empty()) kind += "/" + d.request.subresource;
    out.by_kind[kind] += 1;
    out.all.push_back(d.describe());
  }
  return out;
}

std::string describe(const NamespaceWrites& w) {
  std::string out = fmt::format("{} writes:", w.total());
  for (const auto& line : w.all) out += "\n  " + line;
  return out;
}

bool podRunning(ClusterFixture& c, const std::string& name) {
  auto p = c.client().get({res::kPods, "default", name, ""});
  return p && ctl::stringAt(*p, "/status/phase") == "Running";
}

// Writes that follow a gang's start (its pods' reports, the group's Running status) have
// time to happen before the count.
void settle() { std::this_thread::sleep_for(std::chrono::seconds(3)); }

}  // namespace

TEST_CASE("a lone pod costs the API its binding and at most one Event",
          "[operator][e2e][api-writes]") {
  ClusterFixture c({.nodes = 1, .gpus_per_node = 8});
  c.kubectl("apply -f -", queueYaml("team-a", 8));
  c.kubectl("apply -f -", plainPodYaml("solo", {{"troupe.dev/queue", "team-a"}}, 1));
  REQUIRE(c.eventually([&] { return podRunning(c, "solo"); }));
  settle();
  const auto writes = operatorWrites(c);
  INFO(describe(writes));
  CHECK(writes.count("create pods/binding") == 1);
  CHECK(writes.count("create events") <= 1);
  // Nothing else: no PodGroup made or patched for a pod that never waited.
  CHECK(writes.total() == writes.count("create pods/binding") + writes.count("create events"));
}

TEST_CASE("a lone pod that waits costs one status write more: why it waits, on the pod",
          "[operator][e2e][api-writes]") {
  ClusterFixture c({.nodes = 1, .gpus_per_node = 8});
  c.kubectl("apply -f -", queueYaml("team-a", 8));
  const std::map<std::string, std::string> in_team_a = {{"troupe.dev/queue", "team-a"}};
  c.kubectl("apply -f -", plainPodYaml("first", in_team_a, 6));
  REQUIRE(c.eventually([&] { return podRunning(c, "first"); }));
  // Does not fit beside the first: waits, and says why after 2 s.
  c.kubectl("apply -f -", plainPodYaml("waits", in_team_a, 4));
  REQUIRE(c.eventually([&] {
    auto p = c.client().get({res::kPods, "default", "waits", ""});
    if (!p) return false;
    for (const auto& cond : p->value(Json::json_pointer("/status/conditions"), Json::array()))
      if (cond.value("type", "") == "PodScheduled" && cond.value("reason", "") == "Unschedulable")
        return true;
    return false;
  }));
  // Waits on for a few cycles, its sentence's numbers unchanged or not: no more writes.
  settle();
  c.kubectl("delete pod first --wait=false");
  REQUIRE(c.eventually([&] { return podRunning(c, "waits"); }));
  settle();
  const auto writes = operatorWrites(c);
  INFO(describe(writes));
  // Two pods: two bindings, at most an Event each, and the condition of the one that
  // waited once for each reason it waited for: no room (NoPlacement), then, perhaps, the
  // first pod's GPUs while it terminates (WaitingForReclaim). No PodGroup.
  CHECK(writes.count("create pods/binding") == 2);
  CHECK(writes.count("patch pods/status") >= 1);
  CHECK(writes.count("patch pods/status") <= 2);
  CHECK(writes.count("create events") <= 2);
  CHECK(writes.total() == writes.count("create pods/binding") + writes.count("create events") +
                              writes.count("patch pods/status"));
}

TEST_CASE("a gang of eight plain pods costs eight bindings and a few writes more, not per pod",
          "[operator][e2e][api-writes]") {
  constexpr int kPods = 8;
  ClusterFixture c({.nodes = 2, .gpus_per_node = 8});
  c.kubectl("apply -f -", queueYaml("team-a", 16));
  std::string manifests = podGroupYaml("pt", "team-a", kPods);
  for (int i = 0; i < kPods; ++i)
    manifests += plainPodYaml(fmt::format("pt-{}", i), {{"troupe.dev/pod-group", "pt"}}, 2);
  c.kubectl("apply -f -", manifests);
  REQUIRE(c.eventually([&] {
    auto g = c.client().get({res::kPodGroups, "default", "pt", ""});
    return g && ctl::stringAt(*g, "/status/phase") == "Running";
  }));
  settle();
  const auto writes = operatorWrites(c);
  INFO(describe(writes));
  CHECK(writes.count("create pods/binding") == kPods);
  // One Event for the one admission.
  CHECK(writes.count("create events") == 1);
  // The group's status once per transition it goes through (admitted, running), however
  // many pods report on the way.
  CHECK(writes.count("patch podgroups/status") <= 2);
  CHECK(writes.total() - kPods <= 3);
}
