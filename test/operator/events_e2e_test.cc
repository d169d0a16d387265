// The Events the operator records, read back with kubectl: one per thing that happened to a
// gang (an admission, a preemption), never one per pod or per cycle that looked at it.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <thread>

#include "controllers/object_json.h"
#include "kube/kube_client.h"
#include "test/operator/cluster_fixture.h"
#include "test/operator/manifests.h"

using namespace troupe::operator_runtime::testing;
using Json = nlohmann::json;
namespace res = troupe::kube::resources;
namespace ctl = troupe::controllers;

namespace {

// How many times each "<object> <reason>" was recorded by the operator, counting an
// Event's `count` (a repeat Kubernetes folded into one Event is still a repeat).
std::map<std::string, int> operatorEvents(ClusterFixture& c) {
  const Json events = Json::parse(c.kubectl("get events -o json"), nullptr, false);
  REQUIRE(events.is_object());
  std::map<std::string, int> out;
  for (const auto& e : events["items"]) {
    if (ctl::stringAt(e, "/source/component") != "troupe-operator") continue;
    const auto what =
        fmt::format("{} {} {}", ctl::stringAt(e, "/involvedObject/kind"),
                    ctl::stringAt(e, "/involvedObject/name"), ctl::stringAt(e, "/reason"));
    out[what] += static_cast<int>(e.value("count", 1));
  }
  return out;
}

std::string describe(const std::map<std::string, int>& events) {
  std::string out = "events:";
  for (const auto& [what, n] : events) out += fmt::format("\n  {} x{}", what, n);
  return out;
}

}  // namespace

TEST_CASE("a reclaim records one Event per preemption and one per admission",
          "[operator][e2e][events]") {
  // 32 GPUs; team-a borrows team-b's 16 until team-b submits a job of 16.
  ClusterFixture c({.nodes = 4, .gpus_per_node = 8});
  c.kubectl("apply -f -", queueYaml("team-a", 16) + queueYaml("team-b", 16));
  std::string team_a;
  for (int i = 1; i <= 4; ++i) team_a += jobYaml(fmt::format("a{}", i), "team-a", 1, 8);
  c.kubectl("apply -f -", team_a);
  REQUIRE(c.eventually([&] {
    for (int i = 1; i <= 4; ++i)
      if (c.jobPhase(fmt::format("a{}", i)) != "Running") return false;
    return true;
  }));
  c.kubectl("apply -f -", jobYaml("b1", "team-b", 2, 8));
  REQUIRE(c.eventually([&] { return c.jobPhase("b1") == "Running"; }, std::chrono::seconds(20)));
  // Two of team-a's jobs gave back their 16 GPUs.
  std::vector<std::string> victims;
  for (int i = 1; i <= 4; ++i)
    if (auto name = fmt::format("a{}", i); c.jobPhase(name) != "Running") victims.push_back(name);
  REQUIRE(victims.size() == 2);
  // Events still in flight are written.
  std::this_thread::sleep_for(std::chrono::seconds(2));
  const auto events = operatorEvents(c);
  INFO(describe(events));
  for (const auto& v : victims) CHECK(events.count("TrainingJob " + v + " Preempted") == 1);
  for (const auto& [what, n] : events) {
    INFO(what);
    CHECK(n == 1);
  }
  CHECK(events.count("TrainingJob b1 Admitted") == 1);
  // One reclaim, however many gangs it took the GPUs from.
  CHECK(events.count("TrainingJob b1 Preempting") == 1);
}
