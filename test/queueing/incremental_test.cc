// The engine keeps state across cycles and skips queues whose inputs did not move. These
// stories check that a skipped queue wakes up whenever something it depends on changes.
#include <catch2/catch.hpp>

#include "test/queueing/builders.h"
#include "test/queueing/scenario.h"

namespace troupe::queueing {
namespace {

using namespace testing;

Engine fullClusterWithAWaiter() {
  Engine e = engineWith(rackOfNodes("n", 2, 2),
                        {queue("a").guaranteedGpus(8).maxWait(100), queue("b").guaranteedGpus(8)});
  REQUIRE(e.addRunning(runningOn(gang("a-run").queue("a").gpus(8), {"n-0"})).ok());
  REQUIRE(e.addRunning(runningOn(gang("b-run").queue("b").gpus(8), {"n-1"})).ok());
  // Both queues hold exactly their fair share (8 of 8): nobody may reclaim.
  REQUIRE(e.submit(gang("a-wait").queue("a").gpus(8).submittedAt(0)).ok());
  return e;
}

TEST_CASE("a gang waiting in a quiet queue starts as soon as capacity frees",
          "[queueing][incremental]") {
  Engine e = fullClusterWithAWaiter();
  CHECK(e.schedule(10).empty());
  CHECK(e.schedule(20).empty());  // queue a is clean: not examined again
  REQUIRE(e.remove("b-run").ok());
  const Decisions d = e.schedule(30);
  CHECK(admitted(d, "a-wait"));
}

TEST_CASE("a gang no node could hold starts once a node grows to hold it",
          "[queueing][incremental]") {
  // n-0 offers 2 GPUs (another scheduler's pod holds the rest): no two nodes can hold a
  // 2 x 8 GPU gang, whatever frees.
  Engine e =
      engineWith({node("n-0").gpus(2), node("n-1").gpus(8)}, {queue("a").guaranteedGpus(16)});
  REQUIRE(e.submit(gang("wide").queue("a").pods(2).gpus(8).submittedAt(0)).ok());
  CHECK(e.schedule(10).empty());
  CHECK(e.schedule(20).empty());  // queue a is clean: not examined again
  // The other pod goes: n-0 offers all 8 GPUs.
  REQUIRE(e.upsertNode(node("n-0").gpus(8)).ok());
  CHECK(admitted(e.schedule(30), "wide"));
}

TEST_CASE("a waiting gang is examined again when it starts to starve", "[queueing][incremental]") {
  Engine e = fullClusterWithAWaiter();
  e.schedule(10);
  CHECK(reasonOf(e, "a-wait") == PendingReason::NoPlacement);
  e.schedule(50);
  CHECK(reasonOf(e, "a-wait") == PendingReason::NoPlacement);
  // t = 150 >= 0 + maxWait 100: starving, so it now holds a reservation.
  const Decisions d = e.schedule(150);
  REQUIRE(pendingOf(e, d, "a-wait").has_value());
  CHECK(pendingOf(e, d, "a-wait")->reason == PendingReason::Reserved);
}

TEST_CASE("an arrival in one queue leaves another queue's waiting gang as it was",
          "[queueing][incremental]") {
  Engine e = fullClusterWithAWaiter();
  e.schedule(10);
  REQUIRE(e.submit(gang("b-wait").queue("b").gpus(8).submittedAt(15)).ok());
  const Decisions d = e.schedule(20);
  CHECK(d.admissions.empty());
  CHECK_FALSE(pendingOf(e, d, "a-wait").has_value());  // unchanged, so not reported again
  REQUIRE(pendingOf(e, d, "b-wait").has_value());
  CHECK(reasonOf(e, "a-wait") == PendingReason::NoPlacement);
}

TEST_CASE("a queue whose limit is raised is examined again", "[queueing][incremental]") {
  Engine e = engineWith(rackOfNodes("n", 2, 2), {queue("a").limitGpus(8)});
  REQUIRE(e.submit(gang("a-1").queue("a").gpus(8).submittedAt(0)).ok());
  REQUIRE(e.submit(gang("a-2").queue("a").gpus(8).submittedAt(1)).ok());
  Decisions d = e.schedule(10);
  CHECK(admitted(d, "a-1"));
  CHECK(reasonOf(e, "a-2") == PendingReason::QueueAtLimit);
  CHECK(e.schedule(20).empty());
  REQUIRE(e.upsertQueue(queue("a").limitGpus(16)).ok());
  d = e.schedule(30);
  CHECK(admitted(d, "a-2"));
}

TEST_CASE("a node that joins wakes every waiting queue", "[queueing][incremental]") {
  Engine e = fullClusterWithAWaiter();
  e.schedule(10);
  REQUIRE(e.upsertNode(node("n-new").rack("n-r1")).ok());
  CHECK(admitted(e.schedule(20), "a-wait"));
}

}  // namespace
TEST_CASE("an engine that tracks changes names every gang it added, started, stopped or removed",
          "[queueing][incremental]") {
  Engine e = fullClusterWithAWaiter();
  CHECK(e.changedGangs().empty());  // not tracked until asked
  e.trackChanges();
  CHECK(e.schedule(10).empty());
  CHECK(e.changedGangs().empty());  // a cycle that decides nothing changes no gang
  REQUIRE(e.remove("b-run").ok());
  REQUIRE(e.submit(gang("b-new").queue("b").gpus(16).submittedAt(20)).ok());  // fits no node
  CHECK(e.changedGangs() == std::vector<std::string>{"b-new", "b-run"});
  e.forgetChanges();
  CHECK(e.changedGangs().empty());
  const Decisions d = e.schedule(30);
  REQUIRE(admitted(d, "a-wait"));
  // The admissions are the changes: the gangs it started, and nothing else.
  std::vector<std::string> started;
  for (const auto& a : d.admissions) started.push_back(a.gang);
  std::sort(started.begin(), started.end());
  CHECK(e.changedGangs() == started);
}

}  // namespace troupe::queueing
