#include <catch2/catch.hpp>

#include <memory>

#include "controllers/pending_status.h"
#include "controllers/queue_counts.h"

using namespace troupe::controllers;
namespace q = troupe::queueing;

namespace {

// The demo's tree: org with team-a and team-b under it.
ClusterSnapshot demoTree() {
  ClusterSnapshot c;
  for (const auto& [name, parent] : std::vector<std::pair<std::string, std::string>>{
           {"org", ""}, {"team-a", "org"}, {"team-b", "org"}}) {
    q::QueueSpec spec;
    spec.name = name;
    spec.parent = parent;
    c.snapshot.queues.push_back(spec);
  }
  return c;
}

void addGang(ClusterSnapshot& c, const std::string& key, const std::string& queue, GangState state,
             std::int64_t gpus) {
  Gang g;
  g.key = key;
  g.queue = queue;
  g.state = state;
  c.gangs[key] = g;
  if (state != GangState::Pending) return;
  q::GangSpec spec;
  spec.name = key;
  spec.queue = queue;
  auto shape = std::make_shared<q::PodShape>();
  shape->requests = q::ResourceVector::of(gpus, 0, 0);
  spec.pod_sets.push_back(q::PodSet{shape, 1, 1});
  c.snapshot.pending.push_back(spec);
}

}  // namespace

TEST_CASE("a parent queue counts its subtree's jobs, and never-admissible ones apart",
          "[controllers][queue]") {
  ClusterSnapshot c = demoTree();
  addGang(c, "a/run-1", "team-a", GangState::Running, 8);
  addGang(c, "a/run-2", "team-a", GangState::Running, 8);
  addGang(c, "b/run-1", "team-b", GangState::Running, 8);
  addGang(c, "a/wait", "team-a", GangState::Pending, 16);
  addGang(c, "b/huge", "team-b", GangState::Pending, 160);
  addGang(c, "b/wait", "team-b", GangState::Pending, 8);
  const auto figures = queueFigures(c, [](const std::string& gang) { return gang == "b/huge"; });
  const auto& counts = figures.counts;
  // org: 2 + 1 running, 1 + 1 waiting, b/huge apart.
  CHECK(counts.at("org").running == 3);
  CHECK(counts.at("org").pending == 2);
  CHECK(counts.at("org").inadmissible == 1);
  CHECK(counts.at("team-a").running == 2);
  CHECK(counts.at("team-a").pending == 1);
  CHECK(counts.at("team-b").running == 1);
  CHECK(counts.at("team-b").pending == 1);
  CHECK(counts.at("team-b").inadmissible == 1);
  // What waits, by leaf queue: b/huge's 160 GPUs are not waiting.
  CHECK(figures.waiting_requests.at("team-a")[q::kGpu] == 16);
  CHECK(figures.waiting_requests.at("team-b")[q::kGpu] == 8);
}

TEST_CASE("status.pending names the limit that binds, with the arithmetic",
          "[controllers][pending]") {
  q::ResourceNames names;
  q::PendingExplanation e;
  e.gang = "team-a/llama";
  e.queue = "team-a";
  e.reason = q::PendingReason::QueueAtLimit;
  e.dominant_resource = "nvidia.com/gpu";
  e.request = q::ResourceVector::of(16, 0, 0);
  e.queue_allocated = 49;
  e.queue_guaranteed = 64;
  e.queue_limit = 96;
  e.queue_fair_share = 65;
  e.limited_by_quota = true;
  e.limit_queue = "org";
  e.limit_resource = "nvidia.com/gpu";
  e.limit_slot = q::kGpu;
  e.limit_holds = 127;
  e.limit_asks = 16;
  e.limit_of = 128;
  const auto pending = renderPendingStatus(e, names);
  CHECK(pending["reason"] == "QueueAtLimit");
  CHECK(pending["message"] ==
        "QueueAtLimit: org would hold 143 of its limit 128 nvidia.com/gpu (holds 127, this job "
        "asks 16)");
  CHECK(pending["limitedBy"] == nlohmann::json{{"queue", "org"},
                                               {"resource", "nvidia.com/gpu"},
                                               {"holds", "127"},
                                               {"keptUnlent", "0"},
                                               {"request", "16"},
                                               {"limit", "128"}});
  CHECK(pending["allocated"]["nvidia.com/gpu"] == "49");
  // The cluster binds (what queues keep unlent): no queue is named.
  e.limit_queue.clear();
  CHECK_FALSE(renderPendingStatus(e, names)["limitedBy"].contains("queue"));
}

TEST_CASE("status.pending names a MIG slice that binds, as the engine knows it only by slot",
          "[controllers][pending]") {
  q::ResourceNames names;
  names.slotFor("troupe.dev/gpu-milli");
  const auto mig = names.slotFor("nvidia.com/mig-1g.10gb");
  // A pod asking one slice of a queue limited to 2, holding 2: the slice is its dominant
  // resource (1 of 32 slices beats 1 of 94 CPUs) and the limit that binds.
  q::PendingExplanation e;
  e.gang = "ml/mig-3";
  e.queue = "notebooks";
  e.reason = q::PendingReason::QueueAtLimit;
  e.dominant_resource = "extended-4";
  e.dominant_slot = static_cast<std::int32_t>(mig);
  e.request[mig] = 1;
  e.queue_allocated = 2;
  e.queue_guaranteed = 2;
  e.queue_limit = 2;
  e.queue_fair_share = 2;
  e.limited_by_quota = true;
  e.limit_queue = "notebooks";
  e.limit_resource = "extended-4";
  e.limit_slot = static_cast<std::int32_t>(mig);
  e.limit_holds = 2;
  e.limit_asks = 1;
  e.limit_of = 2;
  const auto pending = renderPendingStatus(e, names);
  // notebooks would hold 2 + 1 = 3 of its 2.
  CHECK(pending["message"] ==
        "QueueAtLimit: notebooks would hold 3 of its limit 2 nvidia.com/mig-1g.10gb (holds 2, "
        "this job asks 1)");
  CHECK(pending["limitedBy"]["resource"] == "nvidia.com/mig-1g.10gb");
  CHECK(pending["allocated"] == nlohmann::json{{"nvidia.com/mig-1g.10gb", "2"}});
  CHECK(pending["request"] == nlohmann::json{{"nvidia.com/mig-1g.10gb", "1"}});
}
